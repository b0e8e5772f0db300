/* lease.pml with a take that ignores whether the lease expired, as a
   holder judging expiry by its own clock, a skew beyond any bound or a
   TTL of zero might: it must still verify, since only the store's atomic,
   conditional writes keep the guarantee, and clocks decide only when a
   holder may lose its ID. */
#define ANY_EXPIRY
#include "lease.pml"

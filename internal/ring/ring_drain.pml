/* ring_drain.pml: ring.pml's model with Drain in place of DropBelow (see
   ring.pml's header): the two together outgrow a test's minute. */
#define DRAIN
#include "ring.pml"

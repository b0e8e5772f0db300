/* The lease protocol of docs/design.md ("The lease protocol") over one
   worker ID w: holders take w from a store, reserve seconds ahead by
   renewing, hand out the seconds reserved, and release w or crash. The
   guarantee: no two holders (incarnations) ever hand out the same second
   of w; each hand-out asserts that no other did, in the ghost used[].

   The store applies each write atomically, as a conditional UPDATE, an
   etcd transaction or a Lua script does: one atomic block each. Its clock,
   clk, ticks, and it alone decides expiry. A holder reads its own clock
   as the store's give or take a tick, anew at each read: the clock gives
   a new holder's first second and each renewal's target, as the taker's
   does on etcd and Redis. A holder may crash at any step (a new
   incarnation may follow), pause (take no step while the clock ticks),
   be cut off (the store never sees its request, or it never sees the
   answer), or time out on a renewal that the store applies later, after
   the holder crashed or released. A holder hands out seconds from its
   first upward, up to its acknowledged reservation (Lease.Reserved),
   whatever its clock says and whether or not it lost w, as
   leasing.Lease.Wait does: so the model has no local deadline, and a
   mutation that ignores one (a holder that goes on after losing w) or
   judges expiry by a holder's clock has no step to take out. w starts
   never leased, or left expired by a holder that used seconds 0 and 1.

   Each mutation, defined as -DNAME, takes out one step of design.md's
   proof, and SPIN then finds two holders handing out one second:
   RAISE_BEFORE_ACK            step 1: a renewal raises the holder's
                               reservation when sent, not once acknowledged.
   WRITE_T_ALONE               step 1: a renewal writes its target, not the
                               greater of it and the reservation.
   NO_OWNER_CHECK              step 2: a renewal is not conditional on the
                               holder still holding w.
   TAKE_READ_APART             step 3: the take is not conditional on the
                               reservation it read.
   TAKEOVER_AT_RESERVATION     step 4: a newcomer starts at the reservation,
                               not above it.
   START_AT_NOW                step 4: a newcomer starts at its clock.
   RELEASE_DROPS_RESERVATION   step 5: release clears the reservation.
   RELEASE_BELOW_FIRST         step 5: release records the caller's last
                               used second alone, not at least First()-1.
   NEW_ID_TWICE                step 6: creating w's record does not
                               require that none exists.
   ANY_EXPIRY, defined by lease_anyexpiry.pml, lets a take ignore expiry,
   as any clock, skew or TTL might, and must still verify: clocks cost
   churn, never a duplicate.

   The sizes below keep the search to seconds; spin -DNTOK=3 (and so on)
   searches further. */

#ifndef NHOLDERS
#define NHOLDERS 2 /* holder processes */
#endif
#ifndef NTOK
#define NTOK 2 /* takes in all, each a new incarnation with its token */
#endif
#ifndef TTL
#define TTL 2 /* ticks of the store clock a lease lasts unrenewed */
#endif
#ifndef AHEAD
#define AHEAD 2 /* what a take or renewal reserves past max(need, now) */
#endif
#ifndef TMAX
#define TMAX 3 /* the store clock's last tick */
#endif
#ifndef MAXS
#define MAXS 5 /* the last second a holder hands out (used[]'s bound) */
#endif

byte clk = 1;  /* the store's clock */
bool exists;   /* w's record (row, keys) has been created */
byte owner;    /* the token of w's holder, 0 for none */
byte left;     /* the ticks the lease lasts unrenewed, 0 once expired */
byte r;        /* the reservation: RESERVED_UNTIL */
byte ntok;     /* the last token given */

/* ghost: some holder handed out the second. A holder hands out each
   second once, so a second found used was another holder's. */
bool used[MAXS + 1];

/* Each holder process's incarnation: its token, 0 between incarnations,
   and its reservation, Lease.Reserved(), which the store's answer to a
   renewal raises. */
byte tok[NHOLDERS];
byte res[NHOLDERS];

/* The renewal on its way from each holder process, at most one. */
byte req[NHOLDERS];    /* its target, 0 for none */
byte reqTok[NHOLDERS]; /* the token it names */

#define max(a, b) ((a) > (b) -> (a) : (b))

/* deliver applies holder h's renewal at the store, or drops it on its
   way: Store.Extend. If it applied and the incarnation that sent it still
   runs, the answer may raise that incarnation's reservation (Lease.extend
   once Store.Extend returned nil), or be lost: a holder whose request
   timed out receives no answer, and one that receives none keeps its
   reservation, so an answer delivered at once covers one delivered
   later. */
inline deliver(h) {
	atomic {
		req[h] != 0 ->
		if
#ifdef NO_OWNER_CHECK
		:: true ->
#else
		:: owner == reqTok[h] ->
#endif
			left = TTL;
#ifdef WRITE_T_ALONE
			r = req[h];
#else
			r = max(r, req[h]);
#endif
			if
			:: tok[h] == reqTok[h] -> res[h] = max(res[h], req[h])
			:: true
			fi
		:: true
		fi;
		req[h] = 0;
		reqTok[h] = 0
	}
}

active proctype Store() {
end:	do
	:: atomic { clk < TMAX -> clk++; left = (left > 0 -> left - 1 : 0) }
	:: deliver(0)
	:: deliver(1)
#if NHOLDERS > 2
	:: deliver(2)
#endif
	od
}

/* readClock sets now to the holder's clock: the store's, give or take a
   tick, read anew each time, so that it may even step back. */
inline readClock() {
	if
	:: now = clk - 1
	:: now = clk
	:: now = clk + 1
	fi
}

/* above returns the first second of a holder taking over w from a
   reservation of r0 at its clock now. */
#if defined(TAKEOVER_AT_RESERVATION)
#define above(r0, now) max(now, r0)
#elif defined(START_AT_NOW)
#define above(r0, now) (now)
#else
#define above(r0, now) max(now, r0 + 1)
#endif

#ifdef ANY_EXPIRY
#define expired true
#else
#define expired (left == 0)
#endif

/* A holder process: incarnations one after another, each a take, then
   hand-outs and renewals until it crashes or releases. A holder that
   lost w goes on renewing here, unlike leasing.Lease: the store refuses
   every such renewal, so the model only allows more. */
proctype Holder(byte me) {
	byte first, next, r0, now;
	bool fresh;

	/* Read w's record: none yet (insert), or a lease that has expired. */
end_read:
	if
	:: atomic { ntok < NTOK && !exists -> fresh = true }
	:: atomic { ntok < NTOK && exists && expired -> r0 = r }
	:: ntok == NTOK -> goto gone
	fi;
	/* Take it, if the record is still as read. */
	atomic {
		readClock();
		if
#ifdef NEW_ID_TWICE
		:: ntok < NTOK && fresh ->
#else
		:: ntok < NTOK && fresh && !exists ->
#endif
			first = now
#ifdef TAKE_READ_APART
		:: ntok < NTOK && !fresh && expired ->
#else
		:: ntok < NTOK && !fresh && exists && expired && r == r0 ->
#endif
			first = above(r0, now)
		:: else -> fresh = false; r0 = 0; now = 0; goto end_read
		fi;
		ntok++;
		tok[me] = ntok;
		exists = true;
		owner = ntok;
		left = TTL;
		res[me] = max(first, now) + AHEAD;
		r = res[me];
		next = first;
		fresh = false;
		r0 = 0;
		now = 0
	}
	do
	:: atomic {
		next <= res[me] && next <= MAXS ->
		assert(!used[next]);
		used[next] = true;
		next++
	}
	:: atomic {
		req[me] == 0 ->
		readClock();
		req[me] = max(next - 1, now) + AHEAD;
		reqTok[me] = tok[me];
#ifdef RAISE_BEFORE_ACK
		res[me] = max(res[me], req[me]);
#endif
		now = 0
	}
	:: atomic {
		/* Release: the renewer stops, and the store frees w if this
		   holder still holds it and the store answers. The caller says
		   0 where it used nothing, as a generator that failed says -1. */
		if
		:: owner == tok[me] ->
			owner = 0;
			left = 0;
#if defined(RELEASE_DROPS_RESERVATION)
			r = 0
#elif defined(RELEASE_BELOW_FIRST)
			r = (next > first -> next - 1 : 0)
#else
			r = max((next > first -> next - 1 : 0), first - 1)
#endif
		:: true
		fi;
		break
	}
	:: break /* a crash */
	od;
	atomic { tok[me] = 0; res[me] = 0; first = 0; next = 0; goto end_read }
gone:
	skip
}

init {
	atomic {
		/* w never leased, or left by a holder that used seconds to 1. */
		if
		:: exists = true; r = 1; used[0] = true; used[1] = true
		:: true
		fi;
		run Holder(0);
		run Holder(1)
#if NHOLDERS > 2
		;
		run Holder(2)
#endif
	}
}

/* ring.pml: a model of the ring of runs, internal/ring/ring.go, which
   checks the proof in docs/design.md's "The ring" (steps 1-6).

   It models Put (with Free's Room check and its drop below the bound),
   TakeFast/TakeMiss (Take), TakeN of 2, takeRun, headRun, advance,
   takeWaiting, DropBelow, Seal and Drain (drainRun), one step for each
   atomic load, add, CAS or store of the Go code; reads of a run's
   immutable fields fold into the step that loaded the run, and the
   producer's own fields (tail, put, lastPut) are its locals.

   Two configurations, as the two together outgrow a test's minute:
   - ring.pml: one producer, a taker that Takes and one that TakeNs of 2,
     until a take fails. Ring of 2 slots; the producer puts {0, 1},
     calls DropBelow(3) (the whole first run is dropped, with takes racing
     it), puts {2, 3} (Put drops the 2 and puts {3}) and {4} (into slot 0
     again), then Seals.
   - ring_drain.pml (DRAIN): one producer and the Take taker. The producer
     puts {0, 1}, {2, 3}, {4, 5} in 2 slots, Seals and Drains.

   Properties, with ghosts got[v] and gone[v] (dropped by DropBelow or Put,
   or claimed by Drain), counted in the step that claims the offsets:
   - none twice: got[v] + gone[v] <= 1 at every claim (steps 1, 2, 5, 6);
   - none lost: at the end every value offered is got or gone exactly once
     (with Drain), and a take fails on a sealed ring only when no value
     waits (steps 2, 3, 4);
   - no value below a bound published before a take began (step 5);
   - no value to a take that began after Drain returned, and Drain returns
     the highest value a take got or DropBelow dropped (step 6);
   - no invalid end state: every take and the producer finish (Seal).

   Mutations (-DNAME), each of which SPIN must refute:
   ring.pml:
   - ADD_PAST_END: takeRun counts an add past the run's end as values (2).
   - DROP_PUBLISH_FIRST: DropBelow stores its bound before dropping (5).
   - DROP_STORE: DropBelow moves next with a store, not a CAS, so counts
     values a take took as dropped (5).
   - PUT_KEEPS_STALE: Put puts the values below the bound (5).
   - PUBLISH_BEFORE_FIELDS: Put stores the slot before the run's n (1).
   - REWRITE_IN_PLACE: Put rewrites the slot's old run object (1).
   - SEAL_NO_LOOK: a take that finds the ring sealed fails without looking
     once more, losing values put before the Seal.
   - NO_SEAL_CHECK: takes never look at Seal, and wait for ever.
   ring_drain.pml:
   - NO_ROOM: Put does not wait for cur to reach the slot's run (4).
   - ADVANCE_EARLY: a take moves cur on after any take, not only after a
     run's last value (3).
   - DRAIN_STORE: drainRun moves next with a store, not a CAS (6).
   - DRAIN_UPWARD: Drain drains the runs above the head upwards (6), which
     TestDrainStress does not catch.

   Left out: the garbage collector (a run object is never reused, but under
   REWRITE_IN_PLACE), int64 overflow and Put's cap at MaxInt64, Step (1),
   Free's count of values (the ring holds every run put), wake-ups, Rearm,
   Pause, Stats and the counters, time (the Wait policy is one blocking
   step; a policy that gives up only ends a take sooner), the memory model
   (each atomic is sequentially consistent, plain writes are published by
   the store after them), and a store of cur in place of its CAS: a take
   stalled between its load of the slot and that store moves cur back,
   which loses values only once two more runs are put behind it, five in
   all, more than these configurations put.
*/

#define SLOTS 2              /* a ring of 2 slots */
#define MASK (SLOTS - 1)
#define NRUNS 3              /* the producer puts 3 runs: the third reuses slot 0 */
#ifdef DRAIN
#define FIRST(k) (2 * ((k) - 1))      /* runs {0, 1}, {2, 3}, {4, 5} */
#define LEN(k) 2
#define NV 6                 /* the values 0 .. NV-1 */
#else
#define FIRST(k) (2 * ((k) - 1))      /* runs {0, 1}, {2, 3}, {4} */
#define LEN(k) ((k) < 3 -> 2 : 1)
#define NV 5
#define BOUND 3              /* DropBelow's bound: drops the whole first run, and Put the 2 */
#endif
#define NOBJ (NRUNS + 1)     /* run objects; 0 is New's empty run numbered -1 */
#define NIL 255              /* headRun's nil */
#define NOTAKE 255           /* a taker's lo0 between takes */

/* The ring. A run object o has the fields num[o] (its seq + 1, so that New's
   empty run is 0), first[o], n[o] and next[o]: the first three immutable
   once published (but under REWRITE_IN_PLACE), next moved by adds and CASes.
   Objects are never reused (the garbage collector keeps one while a take
   holds it), but under REWRITE_IN_PLACE. */
byte slot[SLOTS];   /* the object in each slot, 0 for nil */
byte cur;           /* the object takes take from */
byte num[NOBJ];
byte first[NOBJ];
byte n[NOBJ];
byte next[NOBJ];
byte before[NOBJ];  /* values put before the run */
byte prev[NOBJ];    /* the last value of the run put before it, if before > 0 */
byte lowest;        /* DropBelow's bound as published: Put reads it */
bool sealed;

/* Ghosts: they record what happened. No step of the ring reads them but
   the Wait policy's, which stands for time passing (see takeWaiting). */
byte got[NV];       /* how many times a take got each value */
byte gone[NV];      /* how many times each was dropped (DropBelow, Put) or claimed by Drain */
byte waiting;       /* values put and claimed by no one yet */
byte hi;            /* 1 + the highest value a take got or DropBelow dropped, 0 if none */
bool drained;       /* Drain has returned */

/* A run object for run number seq+1: each run a new one, or under
   REWRITE_IN_PLACE one per slot, rewritten by every Put into that slot. */
#ifdef REWRITE_IN_PLACE
#define OBJ(k) ((((k) - 1) & MASK) + 1)
#else
#define OBJ(k) (k)
#endif

/* claim records that offsets [a, b) of object o are claimed: by a take
   (who 0), which got them, by DropBelow (who 1) or by Drain (who 2). A take
   checks that it began after no bound above the value was published, and
   before Drain returned. Used only inside d_step. */
inline claim(o, a, b, who) {
	i = a;
	do
	:: i < b ->
		v = first[o] + i;
		assert(v < NV);           /* a value the producer put */
		if
		:: who == 0 ->
			got[v]++;
			assert(v >= lo0);     /* none below a bound published before the take began */
			assert(!dr0)          /* none once Drain has returned */
		:: else -> gone[v]++
		fi;
		assert(got[v] + gone[v] == 1);  /* none twice */
		if
		:: who < 2 && v + 1 > hi -> hi = v + 1
		:: else
		fi;
		waiting--;
		i++
	:: else -> break
	od;
	i = 0; v = 0
}

/* loadCur loads cur into d. The load that begins a take (lo0 is NOTAKE)
   also records the bound published and whether Drain has returned. */
inline loadCur(d) {
	d_step {
		d = cur;
		if
		:: lo0 == NOTAKE -> lo0 = lowest; dr0 = drained
		:: else
		fi
	}
}

/* loadSlot loads the slot of the run after d into nx, 0 unless it holds
   that run: the load and the read of the run's immutable seq are one step. */
inline loadSlot(d) {
	d_step {
		nx = slot[num[d] & MASK];
		if
		:: nx != 0 && num[nx] == num[d] + 1 -> skip
		:: else -> nx = 0
		fi
	}
}

/* moveCur is the rest of advance, after loadSlot: it moves cur from d to
   nx with a CAS, or with nx 0 loads cur; ok says whether cur is past d.
   One shared access; callers wrap it in the atomic of their next steps. */
inline moveCur(d, ok) {
	if
	:: nx == 0 -> ok = (cur != d)     /* the next run is not yet put */
	:: else ->
		if :: cur == d -> cur = nx :: else fi;
		ok = 1
	fi;
	nx = 0
}

/* headRun: the run takes take from and its next as read, once one has
   values left; d is NIL when the ring is empty. */
inline headRun(d, c) {
	do
	:: loadCur(d);
		atomic {
			c = next[d];
			if
			:: c < n[d] -> break
			:: else
			fi
		}
		loadSlot(d);
		atomic {
			moveCur(d, ok);
			if
			:: !ok -> d = NIL; c = 0; break
			:: else -> ok = 0
			fi
		}
	od
}

/* takeRun: take up to k values of the head run with one add; cnt is how
   many, 0 when the ring is empty. The add, the offsets it owns (the min
   with the run's immutable n) and the ghosts are one step. */
inline takeRun(k) {
	do
	:: headRun(d, c);
		atomic {
			if
			:: d == NIL -> cnt = 0; d = 0; break
			:: else
			fi;
			off = next[d];
			next[d] = off + (k < n[d] - c -> k : n[d] - c);
#ifdef ADD_PAST_END
			cnt = (k < n[d] - c -> k : n[d] - c);
#else
			cnt = (off >= n[d] -> 0 : (next[d] < n[d] -> next[d] : n[d]) - off);
#endif
			claim(d, off, off + cnt, 0);
			c = 0;
			if
			:: cnt == 0 -> off = 0            /* passed the end: look again */
#ifndef ADVANCE_EARLY
			:: cnt > 0 && off + cnt < n[d] -> off = 0; d = 0; break
#endif
			:: else -> off = 0                /* took the last: advance */
			fi
		}
		if
		:: cnt > 0 ->
			loadSlot(d);
			atomic { moveCur(d, ok); ok = 0; d = 0; break }
		:: else
		fi
	od
}

/* takeWaiting: takeRun on an empty ring. A sealed ring is looked at once
   more, then fails the take. Otherwise the RejectedTake policy, a Wait
   that never gives up, waits in one blocking step, which lets the take
   look again once a value waits or the ring is sealed. */
inline takeWaiting(k) {
	do
	:: atomic {
		if
#ifndef NO_SEAL_CHECK
		:: sealed -> ok = 1
#endif
		:: else -> ok = 0
		fi
	}
		if
		:: ok ->
			ok = 0;
#ifndef SEAL_NO_LOOK
			takeRun(k);
#endif
			assert(cnt > 0 || waiting == 0);  /* fails only once every value put is claimed */
			break
		:: else ->
#ifdef NO_SEAL_CHECK
			(waiting > 0);
#else
			(waiting > 0 || sealed);
#endif
			takeRun(k);
			if
			:: cnt > 0 -> break
			:: else
			fi
		fi
	od
}

/* Take: TakeFast's add on cur's run; TakeMiss on its last value or past
   the end. */
inline take() {
	loadCur(d);
	atomic {
		off = next[d];
		next[d] = off + 1;
		cnt = (off < n[d] -> 1 : 0);
		claim(d, off, off + cnt, 0);
		if
		:: cnt == 1 && off < n[d] - 1 -> d = 0; off = 0
		:: else
		fi
	}
	if
	:: cnt == 1 && off == n[d] - 1 ->
		loadSlot(d);
		atomic { moveCur(d, ok); ok = 0; d = 0; off = 0 }
	:: cnt == 0 ->
		d = 0;
		takeRun(1);
		if
		:: cnt == 0 -> takeWaiting(1)
		:: else
		fi
	:: else
	fi
}

/* TakeN of 2: a second takeRun when the first took one. */
inline takeN() {
	takeRun(2);
	if
	:: cnt == 0 -> takeWaiting(2)
	:: else
	fi;
	if
	:: cnt == 1 -> takeRun(1); cnt = 1
	:: else
	fi
}

/* A taker takes until a take fails: with Take, or with TakeN of 2. */
proctype taker(bool many) {
	byte d, c, off, cnt, nx, i, v;
	byte lo0 = NOTAKE;
	bool ok, dr0;
	do
	:: if
		:: many -> takeN()
		:: else -> take()
		fi;
		if
		:: cnt == 0 -> break
		:: else -> d_step { cnt = 0; lo0 = NOTAKE; dr0 = 0 }
		fi
	od
}

/* Put the run numbered k (seq k-1): values 2(k-1) and 2(k-1)+1. Free is
   a blocking step: the producer waits until cur is on the run the new one
   replaces, or past it (Room). Values below the bound are dropped, the run
   put starting past them. The producer's own fields (tail, put, lastPut)
   are locals. */
inline put(k) {
#ifndef NO_ROOM
	(tail + 1 <= num[cur] + SLOTS);
#endif
	d_step {
		pf = FIRST(k); pn = LEN(k);
#ifndef PUT_KEEPS_STALE
		do
		:: pn > 0 && pf < lowest -> gone[pf]++; pf++; pn--
		:: else -> break
		od;
#endif
		skip
	}
	if
	:: pn > 0 ->
		o = OBJ(tail + 1);
#if defined(PUBLISH_BEFORE_FIELDS)
		/* the slot published before the run's length is written */
		d_step { num[o] = tail + 1; first[o] = pf; next[o] = 0; before[o] = putc; prev[o] = lastPut };
		d_step { slot[tail & MASK] = o; waiting = waiting + pn };
		n[o] = pn;
#elif defined(REWRITE_IN_PLACE)
		/* the object is the slot's old run, which takes may hold */
		d_step { num[o] = tail + 1; first[o] = pf; n[o] = pn; next[o] = 0; before[o] = putc; prev[o] = lastPut };
		d_step { slot[tail & MASK] = o; waiting = waiting + pn };
#else
		/* a new object, which no one sees before the slot's store */
		d_step {
			num[o] = tail + 1; first[o] = pf; n[o] = pn; before[o] = putc; prev[o] = lastPut;
			slot[tail & MASK] = o; waiting = waiting + pn
		};
#endif
		d_step { lastPut = pf + pn - 1; putc = putc + pn; tail++; o = 0 }
	:: else
	fi;
	pf = 0; pn = 0
}

/* DropBelow(BOUND). */
inline dropBelow() {
#ifdef DROP_PUBLISH_FIRST
	lowest = BOUND;
#endif
	do
	:: headRun(d, c);
		if
		:: d == NIL || first[d] + c >= BOUND -> break
		:: else
		fi;
#ifdef DROP_STORE
		d_step {
			fresh = (BOUND - first[d] < n[d] -> BOUND - first[d] : n[d]);
			next[d] = fresh;
			ok = 1;
			claim(d, c, fresh, 1)
		}
#else
		d_step {
			fresh = (BOUND - first[d] < n[d] -> BOUND - first[d] : n[d]);
			if
			:: next[d] == c -> next[d] = fresh; ok = 1; claim(d, c, fresh, 1)
			:: else -> ok = 0
			fi
		}
#endif
		if
		:: ok && fresh < n[d] -> break
		:: ok && fresh >= n[d] -> loadSlot(d); atomic { moveCur(d, ok); ok = 0 }
		:: else
		fi
	od;
	lowest = BOUND;
	d_step { d = 0; c = 0; ok = 0; fresh = 0 }
}

/* drainOne moves run d's next to its end with a CAS from the offset
   loaded (drainRun), and makes the run's last claimed value the one Drain
   returns unless a higher run had one: last is 1 + that value. */
inline drainOne(d) {
	do
	:: atomic {
		c = next[d];
		if
		:: c >= n[d] -> c = n[d]; lastOf(d); break
		:: else
		fi
	}
	atomic {
#ifdef DRAIN_STORE
		next[d] = n[d]; claim(d, c, n[d], 2); lastOf(d); break
#else
		if
		:: next[d] == c -> next[d] = n[d]; claim(d, c, n[d], 2); lastOf(d); break
		:: else
		fi
#endif
	}
	od
}

/* lastOf: c values of run d were claimed before Drain. */
inline lastOf(d) {
	if
	:: c > 0 && last == 0 -> last = first[d] + c
	:: else
	fi;
	c = 0
}

/* Drain: the runs from the last put down to the one after the head, each
   through its slot, then the head; last is 1 + the value it returns, 0 for
   none. */
inline drain() {
	head = cur;
#ifdef DRAIN_UPWARD
	k = num[head] + 1;
	do
	:: atomic { k <= tail -> d = slot[(k - 1) & MASK]; k++ }; drainOne(d)
	:: else -> break
	od;
#else
	k = tail;
	do
	:: atomic { k > num[head] -> d = slot[(k - 1) & MASK]; k-- }; drainOne(d)
	:: else -> break
	od;
#endif
	drainOne(head);
	atomic {
		if
		:: last == 0 && before[head] > 0 -> last = prev[head] + 1
		:: else
		fi;
		assert(last == hi);  /* the last value a take got or DropBelow dropped */
		drained = 1
	}
}

/* The producer puts its runs, calls DropBelow after one of them, seals the
   ring and drains it. tail is the number (seq + 1) of the last run put. */
proctype producer() {
	byte tail, putc, lastPut, o, pf, pn, k, d, c, nx, fresh, i, v, head, last;
	byte lo0;  /* 0: its loads of cur begin no take */
	bool ok, dr0;
	put(1);
#ifdef DRAIN
	put(2);
	put(3);
	sealed = 1;
	drain()
#else
	dropBelow();
	put(2);
	put(3);
	sealed = 1
#endif
}

init {
	byte j;
	atomic {
		run producer();
		run taker(0);
#ifndef DRAIN
		run taker(1)
#endif
	}
	(_nr_pr == 1);
	/* every value the producer offered was got by a take, or dropped, or
	   claimed by Drain, exactly once */
	do
	:: j < NV -> assert(got[j] + gone[j] == 1); j++
	:: else -> break
	od
}

/* Two processes add one to a shared counter, each under a lock; with
   NO_LOCK the lock is gone and an add can be lost. */
byte count;
bool locked;

inline lock() {
#ifdef NO_LOCK
	skip
#else
	atomic { !locked -> locked = true }
#endif
}

inline unlock() {
#ifdef NO_LOCK
	skip
#else
	locked = false
#endif
}

proctype adder() {
	byte v;
	lock();
	v = count;
	count = v + 1;
	unlock()
}

init {
	atomic { run adder(); run adder() }
	(_nr_pr == 1);
	assert(count == 2)
}

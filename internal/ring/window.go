package ring

// takeWindow and dropWindow, when a test sets them, run where a race is
// decided, so that the stress test can hold it open: takeWindow between
// a take's load of cur and its add on the run it loaded, while the
// producer replaces the run's slot and other takes move cur on;
// dropWindow before DropBelow's compare-and-swap, where a take that
// began after the bound was published would find a stale value if
// DropBelow published it before dropping. They run only in race builds
// (raceWindows), so that a take's common case costs nothing more elsewhere.
// Only tests set them, before their goroutines start.
var takeWindow, dropWindow func()

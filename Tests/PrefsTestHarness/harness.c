// How many tests Swift Testing runs at once in the test process, set before it starts.
//
// Swift Testing starts every test at once by default, and each test's body then waits for one
// of the cooperative pool's threads (one per core). Most tests here block their thread while a
// prefs process runs, so on two cores a test that had started waited behind hundreds of others:
// the time limits of tests with awaits ran out (ten of them, 211 seconds after they started)
// although nothing hung. With at most three tests per core in flight, a test's time limit
// measures that test. An explicit SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH is kept.
// (The variable is Swift Testing's, experimental in Swift 6.3: if a later toolchain drops it,
// the run is as before, slower to fail but not wrong.)
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "PrefsTestHarness.h"

__attribute__((constructor)) static void prefs_test_harness_limit_parallel_tests(void) {
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    if (cores < 1) cores = 1;
    char width[32];
    snprintf(width, sizeof width, "%ld", cores * 3);
    setenv("SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH", width, 0);
}

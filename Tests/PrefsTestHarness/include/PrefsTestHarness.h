#ifndef PREFS_TEST_HARNESS_H
#define PREFS_TEST_HARNESS_H

// No API: the harness's constructor (harness.c) runs when the test binary starts. SwiftPM links
// the target's object file into the test binary, so nothing needs to call it.

#endif

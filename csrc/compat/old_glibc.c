/* old_glibc.c -- lets a build on a new glibc load on glibc 2.28 (the manylinux_2_28 floor).
 *
 * Linked into every shared object of a build configured with POLYMASK_OLD_GLIBC=ON
 * (cmake/OldGlibc.cmake), which also links GCC's libstdc++ statically.  The
 * objects of libstdc++.a and the core were compiled against this machine's glibc,
 * so the linker binds their calls to the newest version of each glibc symbol.
 * Each definition below is hidden: it satisfies those calls inside the shared
 * object, so the dynamic symbol table names only versions that glibc 2.28 has.
 *   - Functions glibc 2.34 moved from libpthread into libc, and log2 (2.29 added
 *     a version without the SVID error path): forwarded to the same function at
 *     its first version, GLIBC_2.2.5.  Before glibc 2.34 that version lives in
 *     libpthread.so.0, which the build therefore lists as needed.
 *   - Functions and data that glibc 2.28 lacks altogether, written here from
 *     functions it has.
 * x86-64 only: GLIBC_2.2.5 is the first version of the x86-64 port. */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/random.h>
#include <time.h>

#if !defined(__x86_64__) || !defined(__GLIBC__)
#error "old_glibc.c pins x86-64 glibc symbol versions; build without POLYMASK_OLD_GLIBC"
#endif

#define HIDDEN __attribute__((visibility("hidden")))
/* `first` is bound to `name` at glibc's first x86-64 version. */
#define FIRST_VERSION(first, name) __asm__(".symver " #first ", " #name "@GLIBC_2.2.5")

/* The pthread types stay opaque: these functions only pass them on. */
typedef void *opaque;

int first_pthread_create(opaque, const void *, void *(*)(void *), void *);
int first_pthread_join(unsigned long, void **);
int first_pthread_detach(unsigned long);
int first_pthread_once(opaque, void (*)(void));
int first_pthread_key_create(unsigned *, void (*)(void *));
int first_pthread_key_delete(unsigned);
void *first_pthread_getspecific(unsigned);
int first_pthread_setspecific(unsigned, const void *);
double first_log2(double);
FIRST_VERSION(first_pthread_create, pthread_create);
FIRST_VERSION(first_pthread_join, pthread_join);
FIRST_VERSION(first_pthread_detach, pthread_detach);
FIRST_VERSION(first_pthread_once, pthread_once);
FIRST_VERSION(first_pthread_key_create, pthread_key_create);
FIRST_VERSION(first_pthread_key_delete, pthread_key_delete);
FIRST_VERSION(first_pthread_getspecific, pthread_getspecific);
FIRST_VERSION(first_pthread_setspecific, pthread_setspecific);
FIRST_VERSION(first_log2, log2);

HIDDEN int pthread_create(opaque thread, const void *attr, void *(*start)(void *), void *arg) {
    return first_pthread_create(thread, attr, start, arg);
}
HIDDEN int pthread_join(unsigned long thread, void **result) { return first_pthread_join(thread, result); }
HIDDEN int pthread_detach(unsigned long thread) { return first_pthread_detach(thread); }
HIDDEN int pthread_once(opaque once, void (*init)(void)) { return first_pthread_once(once, init); }
HIDDEN int pthread_key_create(unsigned *key, void (*destructor)(void *)) {
    return first_pthread_key_create(key, destructor);
}
/* libstdc++ tests this one's address to learn whether threads are linked in. */
HIDDEN int __pthread_key_create(unsigned *key, void (*destructor)(void *)) {
    return first_pthread_key_create(key, destructor);
}
HIDDEN int pthread_key_delete(unsigned key) { return first_pthread_key_delete(key); }
HIDDEN void *pthread_getspecific(unsigned key) { return first_pthread_getspecific(key); }
HIDDEN int pthread_setspecific(unsigned key, const void *value) { return first_pthread_setspecific(key, value); }
HIDDEN double log2(double x) { return first_log2(x); }

/* glibc 2.32: libstdc++ skips atomic reference counts while this is nonzero.
 * Zero means "maybe more than one thread", which is always safe. */
HIDDEN char __libc_single_threaded = 0;

/* glibc 2.30: std::condition_variable's timed waits on the steady clock.  The
 * deadline is carried over to the realtime clock, which pthread_cond_timedwait
 * (GLIBC_2.3.2) measures; a jump of the wall clock during the wait moves its end,
 * as it did for every program before glibc 2.30.  A wait may end early anyway:
 * callers recheck their predicate and the clock. */
int pthread_cond_timedwait(opaque cond, opaque mutex, const struct timespec *deadline);
HIDDEN int pthread_cond_clockwait(opaque cond, opaque mutex, clockid_t clock, const struct timespec *deadline) {
    struct timespec on_clock, realtime, carried;
    if (clock == CLOCK_REALTIME) return pthread_cond_timedwait(cond, mutex, deadline);
    if (clock_gettime(clock, &on_clock) != 0 || clock_gettime(CLOCK_REALTIME, &realtime) != 0) return EINVAL;
    int64_t left_ns = (int64_t)(deadline->tv_sec - on_clock.tv_sec) * 1000000000 + (deadline->tv_nsec - on_clock.tv_nsec);
    if (left_ns < 0) left_ns = 0;
    int64_t end_ns = (int64_t)realtime.tv_nsec + left_ns % 1000000000;
    carried.tv_sec = realtime.tv_sec + (time_t)(left_ns / 1000000000) + (time_t)(end_ns / 1000000000);
    carried.tv_nsec = (long)(end_ns % 1000000000);
    return pthread_cond_timedwait(cond, mutex, &carried);
}

/* glibc 2.36: std::random_device's default source.  getrandom is GLIBC_2.25; where
 * the kernel has none (before Linux 3.17), this aborts, as glibc's arc4random does. */
HIDDEN uint32_t arc4random(void) {
    uint32_t value;
    unsigned char *bytes = (unsigned char *)&value;
    size_t got = 0;
    while (got < sizeof value) {
        ssize_t n = getrandom(bytes + got, sizeof value - got, 0);
        if (n > 0) got += (size_t)n;
        else if (errno != EINTR) abort();
    }
    return value;
}

// How much a busy second CPU slows the first, right now: the time of a fixed integer loop on CPU 0 beside a
// thread spinning on CPU 1, over its time with CPU 1 idle (1.00: independent cores; 2.00: the two share one).
//
//   bench/out/vcpu_probe [ROUNDS]      (default 5; prints the median and the range of the rounds' factors)
//
// Why: on a VM the host may run both of our vCPUs on one physical core (SMT siblings, or one core time-
// shared), and that changes from minute to minute. Every two-thread figure (a batch worker beside its
// writer thread, 2 workers against 1) depends on it, so the benchmarks print this factor beside their
// ratios. On a 2-vCPU VM of 2026-11-27 it moved between 1.0 and 1.8 within an hour.
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static atomic_int spinning;
static atomic_int quit;

static void pin(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec / 1e9;
}

// A dependent chain of multiplies and adds: the core's own speed, not memory's.
static double timed_loop(void) {
  double start = now();
  volatile unsigned long sink;
  unsigned long x = 1;
  for (unsigned long i = 0; i < 150000000UL; i++) x = x * 6364136223846793005UL + 1442695040888963407UL;
  sink = x;
  (void)sink;
  return now() - start;
}

static void *spinner(void *unused) {
  (void)unused;
  pin(1);
  volatile unsigned long x = 0;
  while (!atomic_load(&quit)) {
    if (atomic_load(&spinning)) x++;
    else {
      struct timespec pause = {0, 1000000};
      nanosleep(&pause, NULL);
    }
  }
  return NULL;
}

static int compare(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 5;
  if (rounds < 1 || rounds > 101) {
    fprintf(stderr, "rounds: 1-101\n");
    return 2;
  }
  if (sysconf(_SC_NPROCESSORS_ONLN) < 2) {
    printf("one CPU: no second CPU to slow it\n");
    return 0;
  }
  pin(0);
  pthread_t thread;
  pthread_create(&thread, NULL, spinner, NULL);
  double factors[101];
  for (int r = 0; r < rounds; r++) {
    // Alternate which side goes first, so drift within a round hits both.
    double alone, beside;
    if (r % 2) {
      alone = timed_loop();
      atomic_store(&spinning, 1);
      beside = timed_loop();
      atomic_store(&spinning, 0);
    } else {
      atomic_store(&spinning, 1);
      beside = timed_loop();
      atomic_store(&spinning, 0);
      alone = timed_loop();
    }
    factors[r] = beside / alone;
  }
  atomic_store(&quit, 1);
  pthread_join(thread, NULL);
  qsort(factors, rounds, sizeof factors[0], compare);
  double median = rounds % 2 ? factors[rounds / 2] : (factors[rounds / 2 - 1] + factors[rounds / 2]) / 2;
  printf("a busy CPU 1 slows CPU 0 by %.2fx (median of %d rounds, %.2f-%.2f)\n", median, rounds, factors[0],
         factors[rounds - 1]);
  return 0;
}

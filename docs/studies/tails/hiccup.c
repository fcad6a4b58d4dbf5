/* A stall meter: on one CPU, at real-time priority, sleep 1 ms again and again and record every
 * wake-up that came more than THRESHOLD_US late (the CPU was not ours: host, kernel, interrupts).
 * Usage: hiccup CPU SECONDS THRESHOLD_US OUT. OUT gets "realtime_start_s late_us" lines. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(clockid_t c) { struct timespec t; clock_gettime(c, &t); return t.tv_sec + t.tv_nsec / 1e9; }

int main(int argc, char **argv) {
  if (argc != 5) { fprintf(stderr, "usage: hiccup CPU SECONDS THRESHOLD_US OUT\n"); return 2; }
  int cpu = atoi(argv[1]); double seconds = atof(argv[2]); double threshold = atof(argv[3]) / 1e6;
  FILE *out = fopen(argv[4], "w");
  setvbuf(out, NULL, _IOLBF, 0); /* stopped by a signal: every line already written */
  cpu_set_t set; CPU_ZERO(&set); CPU_SET(cpu, &set);
  if (sched_setaffinity(0, sizeof set, &set)) { perror("affinity"); return 1; }
  struct sched_param p = { .sched_priority = 10 };
  if (sched_setscheduler(0, SCHED_FIFO, &p)) perror("SCHED_FIFO (running at normal priority)");
  double end = now(CLOCK_MONOTONIC) + seconds; long wakes = 0; double late_total = 0;
  struct timespec ms = { 0, 1000000 };
  while (now(CLOCK_MONOTONIC) < end) {
    double wall = now(CLOCK_REALTIME), t0 = now(CLOCK_MONOTONIC);
    clock_nanosleep(CLOCK_MONOTONIC, 0, &ms, NULL);
    double late = now(CLOCK_MONOTONIC) - t0 - 1e-3; wakes++;
    if (late > threshold) { fprintf(out, "%.6f %.0f\n", wall, late * 1e6); late_total += late; }
  }
  fprintf(stderr, "wakes %ld, late beyond threshold %.1f ms in all\n", wakes, late_total * 1e3);
  fclose(out); return 0;
}

/*
 * N3 floor: what Karney's inverse problem alone costs for N3's pairs on this platform, with no Meridian, no index,
 * no reading and no writing: Debian's PROJ `geod_geninverse` asked for the distance only (the call a tool deciding
 * every pair by Karney's inverse makes for each; `meridian near --geodesic` makes it only for pairs farther than
 * a/64 or within micrometres of the search distance) on each pair Meridian found, on one thread.
 *
 *   cc -O2 -o bench/out/n3_floor bench/c/n3_floor.c $(pkg-config --cflags --libs proj) -lm
 *   bench/out/n3_floor PAIRS.f64 REPS      # prints one JSON line: pairs, seconds (the fastest repetition),
 *                                          # ns_per_pair, max_abs_diff (metres, from Meridian's distances)
 *
 * PAIRS.f64 (written by bench/py/n_near.py): float64 records of lat1, lon1, lat2, lon2 (degrees, WGS 84) and
 * Meridian's distance for the pair (metres); max_abs_diff is the largest |PROJ's distance − Meridian's| (stated:
 * at most 1 µm).
 */
#include <geodesic.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s PAIRS.f64 REPS\n", argv[0]);
        return 2;
    }
    int reps = atoi(argv[2]);
    FILE *f = fopen(argv[1], "rb");
    if (!f) { perror(argv[1]); return 1; }
    fseek(f, 0, SEEK_END);
    size_t n = (size_t)ftell(f) / (5 * sizeof(double));
    fseek(f, 0, SEEK_SET);
    double *r = malloc(5 * n * sizeof(double) + 1);
    if (!r || fread(r, sizeof(double), 5 * n, f) != 5 * n) { fprintf(stderr, "short read\n"); return 1; }
    fclose(f);
    struct geod_geodesic g;
    geod_init(&g, 6378137, 1 / 298.257223563);
    double *s = malloc(n * sizeof(double) + 1);
    if (!s) return 1;
    double best = INFINITY, maxdiff = 0;
    for (int k = 0; k < (reps > 0 ? reps : 1); k++) {
        double t0 = now();
        for (size_t i = 0; i < n; i++)
            geod_geninverse(&g, r[5 * i], r[5 * i + 1], r[5 * i + 2], r[5 * i + 3], &s[i], 0, 0, 0, 0, 0, 0);
        double t = now() - t0;
        if (t < best) best = t;
    }
    for (size_t i = 0; i < n; i++)
        if (fabs(s[i] - r[5 * i + 4]) > maxdiff) maxdiff = fabs(s[i] - r[5 * i + 4]);
    printf("{\"case\": \"N3\", \"tool\": \"Karney floor\", \"pairs\": %zu, \"seconds\": %.6f, \"ns_per_pair\": %.1f, "
           "\"max_abs_diff\": %.17g}\n", n, best, n ? 1e9 * best / (double)n : 0.0, maxdiff);
    free(r);
    free(s);
    return 0;
}

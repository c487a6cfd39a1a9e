//! sim/matrix.h: a simulated 8x8 reed-switch matrix with a diode per switch, as the board
//! wires it (ranks driven low one at a time, files pulled up and read). It owns the pegs, the
//! bounce of a reed as a magnet arrives or leaves, and the faults a real board can have: a
//! chattering switch, a switch stuck open or closed, a missing diode (whose current path makes
//! ghosts), a file wire touching ground. Used by the host tests (test/test_core.c) and by the
//! simulated microcontroller's harness (sim/pegsim.c), so both see the same electrical model.
#ifndef MATRIX_H
#define MATRIX_H

#include <stdint.h>

#include "../peg_core.h"

/* since_us of a peg that has stood (or an aperture that has been empty) since power-up */
#define MATRIX_SETTLED UINT64_MAX

typedef struct {
    uint8_t target[64];     /* 1 while a peg stands in the aperture */
    uint64_t since_us[64];  /* when the peg last arrived or left (its bounce starts there) */
    uint64_t chatter_until_us[64];
    uint8_t stuck[64];      /* 0 none, 1 stuck open, 2 stuck closed */
    uint8_t nodiode[64];
    uint8_t grounded;       /* files whose wire touches ground */
    uint32_t bounce_scale;  /* percent of the default bounce (100); 0 = a clean contact */
} matrix_t;

/* A matrix whose pegs are the bits of occupancy (bit 8*rank+file), settled long ago. */
void matrix_init(matrix_t *m, uint64_t occupancy);
/* A peg arrives at (1) or leaves (0) square sq at time t; its reed bounces for about 2 ms. */
void matrix_set(matrix_t *m, int sq, int present, uint64_t t_us);
/* Whether the switch of sq is closed at t (bounce, chatter and stuck faults included). */
int matrix_contact(const matrix_t *m, int sq, uint64_t t_us);
/* The files read closed (bit f) while the ranks in `driven` (bit r) are driven low. */
uint8_t matrix_read(const matrix_t *m, uint8_t driven, uint64_t t_us);
/* One whole scan as the board file makes it: each rank alone (15 us apart), then no rank. */
void matrix_scan(const matrix_t *m, uint64_t t_us, uint8_t buttons, peg_scan_t *out);
/* "e4" -> 28; -1 when it is no square. */
int matrix_square(const char *name);

#endif

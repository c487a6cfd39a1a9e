//! sim/matrix.c: the simulated switch matrix (see matrix.h). The ghost model follows the
//! current: from the driven rank, a closed switch reaches its file; from a file, a closed switch
//! whose diode is missing reaches another rank (its diode would have blocked that direction),
//! and every file reached reads closed.
#include "matrix.h"

#include <string.h>

/* A reed's contact as a magnet arrives: closed, open, closed... settling 2 ms after. */
static const uint32_t BOUNCE_US[] = {0, 300, 700, 1200, 2000};
#define BOUNCES (sizeof BOUNCE_US / sizeof BOUNCE_US[0])

void matrix_init(matrix_t *m, uint64_t occupancy)
{
    memset(m, 0, sizeof *m);
    m->bounce_scale = 100;
    for (int sq = 0; sq < 64; sq++) {
        m->target[sq] = (occupancy >> sq) & 1;
        m->since_us[sq] = MATRIX_SETTLED;
    }
}

void matrix_set(matrix_t *m, int sq, int present, uint64_t t_us)
{
    m->target[sq] = (uint8_t)present;
    m->since_us[sq] = t_us;
}

int matrix_contact(const matrix_t *m, int sq, uint64_t t_us)
{
    if (m->stuck[sq])
        return m->stuck[sq] == 2;
    if (t_us < m->chatter_until_us[sq])
        return (int)((t_us / 1500) & 1);
    int target = m->target[sq];
    if (m->since_us[sq] == MATRIX_SETTLED)
        return target;
    if (t_us < m->since_us[sq])
        return !target;
    uint64_t dt = t_us - m->since_us[sq];
    /* which bounce interval dt falls in: even intervals reach the target, odd ones not yet */
    int k = 0;
    for (unsigned i = 0; i < BOUNCES; i++)
        if (dt >= (uint64_t)BOUNCE_US[i] * m->bounce_scale / 100)
            k = (int)i;
    return (k & 1) ? !target : target;
}

uint8_t matrix_read(const matrix_t *m, uint8_t driven, uint64_t t_us)
{
    uint8_t closed[8];
    for (int r = 0; r < 8; r++) {
        closed[r] = 0;
        for (int f = 0; f < 8; f++)
            if (matrix_contact(m, 8 * r + f, t_us))
                closed[r] |= (uint8_t)(1u << f);
    }
    uint8_t ranks = driven, files = 0;
    for (;;) {
        uint8_t more_files = files, more_ranks = ranks;
        for (int r = 0; r < 8; r++)
            if (ranks & (1u << r))
                more_files |= closed[r];
        for (int r = 0; r < 8; r++)
            for (int f = 0; f < 8; f++)
                if ((more_files & (1u << f)) && (closed[r] & (1u << f)) && m->nodiode[8 * r + f])
                    more_ranks |= (uint8_t)(1u << r);
        if (more_files == files && more_ranks == ranks)
            break;
        files = more_files;
        ranks = more_ranks;
    }
    return (uint8_t)(files | m->grounded);
}

void matrix_scan(const matrix_t *m, uint64_t t_us, uint8_t buttons, peg_scan_t *out)
{
    /* the ranks one after the other, 15 us apart, as the firmware reads them; then no rank */
    for (int r = 0; r < 8; r++)
        out->raw[r] = matrix_read(m, (uint8_t)(1u << r), t_us + 15u * (unsigned)r);
    out->idle = matrix_read(m, 0, t_us + 135);
    out->buttons = buttons;
}

int matrix_square(const char *name)
{
    if (!name || name[0] < 'a' || name[0] > 'h' || name[1] < '1' || name[1] > '8')
        return -1;
    return 8 * (name[1] - '1') + (name[0] - 'a');
}

//! peg_core.c: the firmware's logic without hardware (see peg_core.h): debounce, fault checks,
//! the lines of the protocol and the host's commands. Plain C99, no heap, no floating point, no
//! avr-libc: the same file builds for the ATmega328P and for the host tests.
#include "peg_core.h"

#include <string.h>

#define BIT(sq) ((uint8_t)(1u << ((sq) & 7)))
#define RANK(sq) ((sq) >> 3)
#define FILE_OF(sq) ((sq) & 7)
#define PEND_PLACED 0x80 /* in c->pend: the square was placed (else lifted) */

static int occ(const uint8_t b[8], int rank, int file) { return (b[rank] >> file) & 1; }

static uint16_t tx_free(const peg_core_t *c)
{
    return (uint16_t)(PEG_TX_SIZE - 1 - (uint8_t)(c->tx_head - c->tx_tail));
}

/* Queue one line (CR LF added); a line that does not fit is lost and said so later. */
static void emit(peg_core_t *c, const char *line)
{
    size_t n = strlen(line);
    if (n + 2 > tx_free(c)) {
        c->tx_lost = 1;
        return;
    }
    uint8_t head = c->tx_head;
    for (size_t i = 0; i < n + 2; i++)
        c->tx[head++] = i < n ? (uint8_t)line[i] : (i == n ? '\r' : '\n');
    c->tx_head = head; /* the whole line at once, after its bytes */
}

static void square_name(char *out, int sq)
{
    out[0] = (char)('a' + FILE_OF(sq));
    out[1] = (char)('1' + RANK(sq));
    out[2] = 0;
}

uint64_t peg_occupancy(const peg_core_t *c)
{
    uint64_t bits = 0;
    for (int r = 7; r >= 0; r--)
        bits = (bits << 8) | (uint8_t)(c->state[r] & ~c->withheld[r]);
    return bits;
}

static void emit_snapshot(peg_core_t *c)
{
    static const char hex[] = "0123456789ABCDEF";
    char line[19] = "S ";
    uint64_t bits = peg_occupancy(c);
    for (int i = 0; i < 16; i++)
        line[2 + i] = hex[(bits >> (60 - 4 * i)) & 0xF];
    line[18] = 0;
    emit(c, line);
}

static void emit_square(peg_core_t *c, char letter, int sq)
{
    char line[5] = {letter, ' ', 0, 0, 0};
    square_name(line + 2, sq);
    emit(c, line);
}

void peg_init(peg_core_t *c, const peg_scan_t *first)
{
    memset(c, 0, sizeof *c);
    for (int r = 0; r < 8; r++)
        c->state[r] = c->cand[r] = first->raw[r];
    memset(c->stable, 255, sizeof c->stable);
    c->btn_state = c->btn_cand = first->buttons;
    memset(c->btn_stable, 255, sizeof c->btn_stable);
    emit(c, "H " PEG_GREETING);
    emit_snapshot(c);
}

/* A grounded file reads closed in every rank: its squares are withheld (no lines) until it
 * reads open with no rank driven again, and then a snapshot tells the host the truth. */
/* Every '#' of a text becomes the file letter. */
static void fill(char *line, char file)
{
    for (; *line; line++)
        if (*line == '#')
            *line = file;
}

/* Whether every square of file f has read the same for the debounce time, and its state says so
 * (a file repaired mid-scan reads open in its ranks a scan after its idle read). */
static int file_settled(const peg_core_t *c, int f)
{
    for (int r = 0; r < 8; r++) {
        int sq = 8 * r + f;
        if (c->stable[sq] < PEG_DEBOUNCE_MS || ((c->cand[r] ^ c->state[r]) & BIT(sq)))
            return 0;
    }
    return 1;
}

static void check_ground(peg_core_t *c, uint8_t idle)
{
    for (int f = 0; f < 8; f++) {
        uint8_t bit = (uint8_t)(1u << f);
        if (idle & bit) {
            c->resync[f] = 0;
            if (c->ground_count[f] < 255)
                c->ground_count[f]++;
            if (c->ground_count[f] == PEG_GROUND_SCANS && !(c->grounded & bit)) {
                char line[128] = "E file # grounded: it reads closed with no rank driven; #1-#8 "
                                "cannot be sensed until it is fixed";
                fill(line, (char)('a' + f));
                c->grounded |= bit;
                for (int r = 0; r < 8; r++)
                    c->withheld[r] |= bit;
                emit(c, line);
            }
        } else {
            c->ground_count[f] = 0;
            if ((c->grounded & bit) && c->resync[f] == 0)
                c->resync[f] = PEG_DEBOUNCE_MS + 2;
            if (c->resync[f] && --c->resync[f] == 0 && !file_settled(c, f)) {
                c->resync[f] = 1; /* a square of it still settles: the next scan, again */
            } else if (c->resync[f] == 0 && (c->grounded & bit)) {
                char line[40] = "E file # works again";
                fill(line, (char)('a' + f));
                c->grounded &= (uint8_t)~bit;
                for (int r = 0; r < 8; r++)
                    c->withheld[r] &= (uint8_t)~bit;
                emit(c, line);
                emit_snapshot(c);
            }
        }
    }
}

/* Whether squares a and b, changing together, are what a missing diode shows: the corners of a
 * rectangle whose other two corners hold pegs. Hands never close two switches in one scan. */
static int ghost_pair(const uint8_t st[8], int a, int b)
{
    int ra = RANK(a), fa = FILE_OF(a), rb = RANK(b), fb = FILE_OF(b);
    if (ra != rb && fa != fb)
        return occ(st, ra, fb) && occ(st, rb, fa);
    if (ra == rb) {
        for (int r = 0; r < 8; r++)
            if (r != ra && occ(st, r, fa) && occ(st, r, fb))
                return 1;
        return 0;
    }
    for (int f = 0; f < 8; f++)
        if (f != fa && occ(st, ra, f) && occ(st, rb, f))
            return 1;
    return 0;
}

/* Report the changes held in c->pend: the ghosts among them as one E line (the placed ones
 * withheld), the others as L and P lines in the order they were decided. */
static void flush_changes(peg_core_t *c)
{
    uint8_t n = c->pend_n;
    uint64_t ghost = 0;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
            uint8_t a = c->pend[i], b = c->pend[j];
            if (((a ^ b) & PEND_PLACED) == 0 && ghost_pair(c->state, a & 63, b & 63))
                ghost |= (1ull << i) | (1ull << j);
        }
    if (ghost) {
        char line[160] = "E ghost:";
        size_t len = strlen(line);
        for (int i = 0; i < n; i++) {
            int sq = c->pend[i] & 63;
            if (!((ghost >> i) & 1))
                continue;
            if (c->pend[i] & PEND_PLACED)
                c->withheld[RANK(sq)] |= BIT(sq);
            if (len + 4 < 64) {
                line[len++] = ' ';
                square_name(line + len, sq);
                len += 2;
            }
        }
        strcpy(line + len, " changed together, as a missing diode makes them; "
                           "check the diodes of their rectangle");
        emit(c, line);
    }
    for (int i = 0; i < n; i++)
        if (!((ghost >> i) & 1))
            emit_square(c, (c->pend[i] & PEND_PLACED) ? 'P' : 'L', c->pend[i] & 63);
    c->pend_n = 0;
    c->pend_age = 0;
}

/* Whether a sensor not yet decided began to change within a scan of a held change. */
static int companion_settling(const peg_core_t *c)
{
    for (int sq = 0; sq < 64; sq++) {
        if (c->stable[sq] >= PEG_DEBOUNCE_MS)
            continue; /* settled (decided, or back where it was) */
        for (int i = 0; i < c->pend_n; i++) {
            uint16_t d = (uint16_t)(c->began[sq] - c->began[c->pend[i] & 63]);
            if (d <= 1 || d >= 0xFFFF)
                return 1;
        }
    }
    return 0;
}

static void debounce_squares(peg_core_t *c, const uint8_t raw[8])
{
    int released = 0;
    for (int sq = 0; sq < 64; sq++) {
        int r = RANK(sq);
        uint8_t bit = BIT(sq);
        if ((sq & 7) == 0 && !((raw[r] ^ c->cand[r]) | c->busy[r])) {
            sq += 7; /* a quiet rank: nothing flips, nothing is being timed */
            continue;
        }
        uint8_t now = raw[r] & bit;
        if (now != (c->cand[r] & bit)) {
            if (!((c->cand[r] ^ c->state[r]) & bit) && c->stable[sq] >= PEG_DEBOUNCE_MS)
                c->began[sq] = c->scan_no; /* a change begins (not a bounce within one) */
            c->cand[r] ^= bit;
            c->stable[sq] = 0;
            if (c->flips[sq] < 255)
                c->flips[sq]++;
            if (c->flips[sq] == PEG_CHATTER_FLIPS && !(c->chattering[r] & bit)) {
                char line[80] = "E sensor a1 chatters: no change is reported until it settles";
                square_name(line + 9, sq);
                line[11] = ' ';
                c->chattering[r] |= bit;
                emit(c, line);
            }
        } else if (c->stable[sq] < 255) {
            c->stable[sq]++;
        }
        if (c->stable[sq] < PEG_DEBOUNCE_MS)
            c->busy[r] |= bit;
        else
            c->busy[r] &= (uint8_t)~bit;
        if (c->stable[sq] >= PEG_DEBOUNCE_MS) {
            c->flips[sq] = 0;
            c->chattering[r] &= (uint8_t)~bit;
            if ((c->cand[r] & bit) != (c->state[r] & bit)) {
                c->state[r] ^= bit;
                if (c->withheld[r] & bit) {
                    /* a withheld square changed: unless its file is grounded, the ghost is gone */
                    if (!(c->grounded & bit)) {
                        c->withheld[r] &= (uint8_t)~bit;
                        released = 1;
                    }
                } else {
                    if (c->pend_n == sizeof c->pend)
                        flush_changes(c);
                    c->pend[c->pend_n++] =
                        (uint8_t)(sq | ((c->state[r] & bit) ? PEND_PLACED : 0));
                }
            }
        }
    }
    /* A ghost begins to change in the same scan as the peg that makes it (or the next, when
     * the magnet arrives between the reading of their ranks), but the two may settle scans
     * apart: a rank read during a bounce sees it, another does not. So the changes decided
     * are held while a sensor that began with them still settles, and judged together. */
    if (c->pend_n) {
        c->pend_age++;
        if (released || c->pend_age >= PEG_GROUP_SCANS || !companion_settling(c))
            flush_changes(c);
    }
    if (released) {
        /* the pattern is broken: what stands now is the truth */
        for (int r = 0; r < 8; r++)
            c->withheld[r] &= c->grounded;
        emit(c, "E ghost gone: snapshot follows");
        emit_snapshot(c);
    }
}

static void debounce_buttons(peg_core_t *c, uint8_t held)
{
    for (int b = 0; b < PEG_BUTTONS; b++) {
        uint8_t bit = (uint8_t)(1u << b);
        if ((held ^ c->btn_cand) & bit) {
            c->btn_cand ^= bit;
            c->btn_stable[b] = 0;
        } else if (c->btn_stable[b] < 255) {
            c->btn_stable[b]++;
        }
        if (c->btn_stable[b] >= PEG_DEBOUNCE_MS && ((c->btn_cand ^ c->btn_state) & bit)) {
            c->btn_state ^= bit;
            if (c->btn_state & bit) {
                char line[4] = {'B', ' ', (char)('1' + b), 0};
                emit(c, line);
            }
        }
    }
}

void peg_scan(peg_core_t *c, const peg_scan_t *s)
{
    if (c->tx_lost && tx_free(c) > 64) {
        c->tx_lost = 0;
        emit(c, "E output overrun: lines were lost; snapshot follows");
        emit_snapshot(c);
    }
    if (c->rx_overrun) {
        c->rx_overrun = 0;
        emit(c, "E input overrun: bytes from the host were lost");
    }
    c->scan_no++;
    check_ground(c, s->idle);
    debounce_squares(c, s->raw);
    debounce_buttons(c, s->buttons);
}

static void host_line(peg_core_t *c)
{
    char *line = c->rx;
    size_t n = c->rx_len;
    line[n] = 0;
    while (*line == ' ' || *line == '\t')
        line++, n--;
    while (n && (line[n - 1] == ' ' || line[n - 1] == '\t'))
        line[--n] = 0;
    if (n == 0)
        return;
    if (strcmp(line, "?") == 0) {
        emit_snapshot(c);
    } else if (strcmp(line, "V") == 0) {
        emit(c, "H " PEG_GREETING);
    } else {
        char out[24 + PEG_HOST_LINE_MAX] = "E unknown command ";
        size_t at = strlen(out);
        for (size_t i = 0; i < n; i++)
            out[at++] = (line[i] >= 0x20 && line[i] < 0x7F) ? line[i] : '.';
        out[at] = 0;
        emit(c, out);
    }
}

void peg_rx(peg_core_t *c, uint8_t byte)
{
    if (byte == '\n') {
        if (!c->rx_skip)
            host_line(c);
        c->rx_skip = 0;
        c->rx_len = 0;
    } else if (byte == '\r' || c->rx_skip) {
        /* CR of CR LF; or the rest of an over-long line */
    } else if (c->rx_len == PEG_HOST_LINE_MAX) {
        c->rx_skip = 1;
        c->rx_len = 0;
        emit(c, "E host line too long: over 32 bytes, ignored");
    } else {
        c->rx[c->rx_len++] = (char)byte;
    }
}

void peg_rx_overrun(peg_core_t *c)
{
    c->rx_overrun = 1;
    /* the line under way lost bytes: drop it rather than act on a mangled command */
    c->rx_skip = 1;
    c->rx_len = 0;
}

int peg_tx_pending(const peg_core_t *c) { return c->tx_head != c->tx_tail; }

int peg_tx_next(peg_core_t *c)
{
    if (c->tx_head == c->tx_tail)
        return -1;
    uint8_t b = c->tx[c->tx_tail];
    c->tx_tail = (uint8_t)(c->tx_tail + 1);
    return b;
}

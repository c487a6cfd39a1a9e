//! test/test_core.c: the firmware core (peg_core.c) built for the host and run table-driven
//! against the simulated matrix (sim/matrix.c): each case sets pegs, acts as hands, faults and
//! the host do, one millisecond scan at a time, and the lines the core sends must be exactly
//! the expected ones. `make test` runs it; `make test DEBOUNCE=0` builds the core without its
//! debounce, and then the cases about bounce must fail.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../peg_core.h"
#include "../sim/matrix.h"

typedef struct {
    const char *name;
    const char *pegs;   /* "start", or squares with pegs */
    const char *script; /* commands separated by ';' (see run()) */
    const char *expect; /* lines after the power-up, '|' between; "x*" = a line starting "x";
                           "line{n}" = that line n times */
} case_t;

#define START "FFFF00000000FFFF"

static const case_t CASES[] = {
    {"a pawn move with bouncing reeds", "start", "-e2;w400;+e4", "L e2|P e4"},
    {"clean contacts (no bounce)", "start", "k0;-e2;w400;+e4", "L e2|P e4"},
    {"bounce three times as long", "start", "k300;-g1;w400;+f3", "L g1|P f3"},
    {"a peg rocked in its aperture is no change", "start", "-e2;w10;+e2", ""},
    {"lifted and put back after 60 ms", "start", "-e2;w60;+e2", "L e2|P e2"},
    {"a quick slide over e3 is not seen", "start", "-e2;w40;+e3;w6;-e3;w6;+e4",
     "L e2|P e4"},
    {"a slow slide over e3 is seen", "start", "-e2;w40;+e3;w60;-e3;w60;+e4",
     "L e2|P e3|L e3|P e4"},
    {"capture: captured piece first", "e4 d5 a1", "-d5;w300;-e4;w300;+d5",
     "L d5|L e4|P d5"},
    {"capture: capturing piece first", "e4 d5 a1", "-e4;w300;-d5;w300;+d5",
     "L e4|L d5|P d5"},
    {"capture: captured piece swapped out fast", "e4 d5 a1", "-e4;w300;-d5;w30;+d5",
     "L e4|L d5|P d5"},
    {"short castling", "e1 h1 a1 e8", "-e1;w200;+g1;w200;-h1;w200;+f1",
     "L e1|P g1|L h1|P f1"},
    {"long castling, rook first", "e8 a8 h8 e1", "-a8;w200;+d8;w200;-e8;w200;+c8",
     "L a8|P d8|L e8|P c8"},
    {"en passant", "e5 d5 e1 e8", "-e5;w200;+d6;w200;-d5",
     "L e5|P d6|L d5"},
    {"the 32-piece start set up peg by peg", "",
     "+a1;w50;+b1;w50;+c1;w50;+d1;w50;+e1;w50;+f1;w50;+g1;w50;+h1;w50;"
     "+a2;w50;+b2;w50;+c2;w50;+d2;w50;+e2;w50;+f2;w50;+g2;w50;+h2;w50;"
     "+a7;w50;+b7;w50;+c7;w50;+d7;w50;+e7;w50;+f7;w50;+g7;w50;+h7;w50;"
     "+a8;w50;+b8;w50;+c8;w50;+d8;w50;+e8;w50;+f8;w50;+g8;w50;+h8;w50;h?\n",
     "P a1|P b1|P c1|P d1|P e1|P f1|P g1|P h1|P a2|P b2|P c2|P d2|P e2|P f2|P g2|P h2|"
     "P a7|P b7|P c7|P d7|P e7|P f7|P g7|P h7|P a8|P b8|P c8|P d8|P e8|P f8|P g8|P h8|"
     "S " START},
    {"changes in the order they happened", "start", "-e2;w5;-d2;w100;+d4;w3;+e4",
     "L e2|L d2|P d4|P e4"},
    {"the same, the other order", "start", "-d2;w5;-e2", "L d2|L e2"},
    {"? answers the snapshot", "start", "h?\n", "S " START},
    {"the snapshot after 1.e4", "start", "-e2;w100;+e4;w100;h?\n",
     "L e2|P e4|S FFFF00001000EFFF"},
    {"V answers the greeting", "start", "hV\n", "H " PEG_GREETING},
    {"CR LF from the host", "start", "h?\r\n;hV\r\n", "S " START "|H " PEG_GREETING},
    {"spaces around a command", "start", "h  V \t\n", "H " PEG_GREETING},
    {"blank lines are ignored", "start", "h\n\r\n  \n", ""},
    {"an unknown command", "start", "hX1\n", "E unknown command X1"},
    {"commands are upper case", "start", "hv\n", "E unknown command v"},
    {"control bytes are not echoed raw", "start", "h?\x01\x7f\n", "E unknown command ?.."},
    {"a command split across reads", "start", "h?;w7;h\n", "S " START},
    {"CR and LF split across reads", "start", "hV;w1;h\r;w1;h\n;w1;h?;w2;h\r\n",
     "H " PEG_GREETING "|S " START},
    {"a host line too long, then a good one", "start",
     "hAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\n;h?\n",
     "E host line too long*|S " START},
    {"a line of exactly 32 bytes is read", "start", "hAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\n",
     "E unknown command AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"},
    {"the board lost host bytes", "start", "h?;O;h\n;w2;h?\n", "E input overrun*|S " START},
    {"the output overruns and recovers", "start", "n;h?\n?\n?\n?\n?\n?\n?\n?\n?\n?\n?\n?\n"
     "?\n?\n?\n?\n?\n?\n?\n?\n?\n?\n?\n?\n?\n?\n?\n?\n?\n?\n;N",
     "S " START "{12}|E output overrun*|S " START},
    {"button 1 once per press", "start", "b1;w200;r1", "B 1"},
    {"a bouncing button is one press", "start", "b2;w1;r2;w1;b2;w2;r2;w1;b2;w200;r2;w50",
     "B 2"},
    {"a button held long is one press", "start", "b3;w2000;r3", "B 3"},
    {"two buttons", "start", "b1;w100;r1;w100;b4;w100;r4", "B 1|B 4"},
    {"a chattering empty square", "start", "ce4:400", "E sensor e4 chatters*"},
    {"a chattering occupied square is no lift", "start", "ce2:400;w100",
     "E sensor e2 chatters*"},
    {"a switch stuck closed: its lift is not seen", "start", "se2;-e2;w100;+e4;w100;h?\n",
     "P e4|S FFFF00001000FFFF"},
    {"a switch stuck open: its placement is not seen", "start", "oe4;-e2;w100;+e4;w100",
     "L e2"},
    {"a missing diode alone does no harm", "start", "de4;-e2;w100;+e4;w100;-d7;w100;+d5",
     "L e2|P e4|L d7|P d5"},
    {"missing diode: the rectangle's fourth corner", "a1 b1", "db1;+b3;w100;-b3;w100",
     "E ghost: a3 b3 changed*|E ghost gone*|S 0000000000000003"},
    {"missing diode: a ghost decided a scan before its peg (a bounce between rank reads)",
     "c1 f3 c4", "dc3;+c3@40;w100", "E ghost: f4 f1 c3 changed*"},
    {"missing diode in the start position", "start", "db1;-b2;w100;+b3;w100",
     "L b2|E ghost: a3 b3 c3 d3 e3 f3 g3 h3*"},
    {"missing diode repaired: the truth follows", "start", "db1;-b2;w100;+b3;w100;Db1;w100",
     "L b2|E ghost: a3 b3 c3 d3 e3 f3 g3 h3*|E ghost gone*|S FFFF00000002FDFF"},
    {"a grounded file and its repair", "start", "gc;w100;Gc;w100",
     "E file c grounded*|E file c works again|S " START},
    {"a move on a grounded file is not reported", "start", "gc;w100;-c2;w100;+c3;w100;Gc;w100",
     "E file c grounded*|E file c works again|S FFFF00000004FBFF"},
};

static char out[16384];
static size_t out_len;

static void drain(peg_core_t *c)
{
    int b;
    while ((b = peg_tx_next(c)) >= 0)
        if (out_len + 1 < sizeof out)
            out[out_len++] = (char)b;
    out[out_len] = 0;
}

static uint64_t pegs_of(const char *pegs)
{
    if (strcmp(pegs, "start") == 0)
        return 0xFFFF00000000FFFFull;
    uint64_t bits = 0;
    for (const char *p = pegs; *p; p++)
        if (p[0] >= 'a' && p[0] <= 'h' && p[1] >= '1' && p[1] <= '8')
            bits |= 1ull << matrix_square(p), p++;
    return bits;
}

/* "+e4@40": the microseconds into the scan period when the hand acts (default 100). */
static uint64_t at_us(const char *cmd)
{
    const char *at = strchr(cmd, '@');
    return at ? (uint64_t)atoi(at + 1) : 100;
}

/* The lines the core sent after power-up for a case, '|' between them. */
static void run(const case_t *k, char *got, size_t got_size)
{
    static peg_core_t core;
    matrix_t m;
    uint64_t t = 0; /* microseconds; a scan every 1000 */
    uint8_t buttons = 0;
    int hold = 0;
    peg_scan_t s;
    matrix_init(&m, pegs_of(k->pegs));
    matrix_scan(&m, t, buttons, &s);
    peg_init(&core, &s);
    out_len = 0;
    drain(&core);
    size_t power_up = out_len;
    const char *p = k->script;
    while (1) {
        char cmd[128];
        size_t n = strcspn(p, ";");
        memcpy(cmd, p, n);
        cmd[n] = 0;
        int wait = 1;
        int sq = matrix_square(cmd + 1);
        switch (cmd[0]) {
        case 'w': wait = atoi(cmd + 1); break;
        case '+': matrix_set(&m, sq, 1, t + at_us(cmd)); break;
        case '-': matrix_set(&m, sq, 0, t + at_us(cmd)); break;
        case 'k': m.bounce_scale = (uint32_t)atoi(cmd + 1); break;
        case 'c': m.chatter_until_us[sq] = t + 1000ull * (uint64_t)atoi(cmd + 4); break;
        case 's': m.stuck[sq] = 2; break;
        case 'o': m.stuck[sq] = 1; break;
        case 'd': m.nodiode[sq] = 1; break;
        case 'D': m.nodiode[sq] = 0; break;
        case 'g': m.grounded |= (uint8_t)(1u << (cmd[1] - 'a')); break;
        case 'G': m.grounded &= (uint8_t)~(1u << (cmd[1] - 'a')); break;
        case 'b': buttons |= (uint8_t)(1u << (cmd[1] - '1')); break;
        case 'r': buttons &= (uint8_t)~(1u << (cmd[1] - '1')); break;
        case 'h':
            for (const char *b = cmd + 1; *b; b++)
                peg_rx(&core, (uint8_t)*b);
            wait = 0;
            break;
        case 'O': peg_rx_overrun(&core); wait = 0; break;
        case 'n': hold = 1; wait = 0; break;
        case 'N': hold = 0; wait = 0; break;
        case 0: break;
        default: fprintf(stderr, "bad command %s\n", cmd); exit(2);
        }
        for (int i = 0; i < wait; i++) {
            t += 1000;
            matrix_scan(&m, t, buttons, &s);
            peg_scan(&core, &s);
            if (!hold)
                drain(&core);
        }
        if (!p[n])
            break;
        p += n + 1;
    }
    /* everything settles */
    for (int i = 0; i < 500; i++) {
        t += 1000;
        matrix_scan(&m, t, buttons, &s);
        peg_scan(&core, &s);
        drain(&core);
    }
    /* CR LF lines -> '|' between them */
    size_t g = 0;
    for (size_t i = power_up; i < out_len && g + 2 < got_size; i++) {
        if (out[i] == '\r')
            continue;
        got[g++] = out[i] == '\n' ? '|' : out[i];
    }
    if (g)
        g--; /* the last line's '|' */
    got[g] = 0;
}

/* Whether got matches expect: lines equal, "x*" a prefix, "x{n}" n times. */
static int matches(const char *expect, const char *got)
{
    char e[8192], line[512];
    size_t el = 0;
    /* expand repeats */
    for (const char *p = expect; *p;) {
        size_t n = strcspn(p, "|");
        memcpy(line, p, n);
        line[n] = 0;
        int times = 1;
        char *brace = strchr(line, '{');
        if (brace) {
            times = atoi(brace + 1);
            *brace = 0;
        }
        for (int i = 0; i < times; i++)
            el += (size_t)sprintf(e + el, "%s%s", el ? "|" : "", line);
        p += n + (p[n] ? 1 : 0);
    }
    e[el] = 0;
    const char *a = e, *b = got;
    while (*a || *b) {
        size_t na = strcspn(a, "|"), nb = strcspn(b, "|");
        if (na && a[na - 1] == '*') {
            if (nb < na - 1 || strncmp(a, b, na - 1) != 0)
                return 0;
        } else if (na != nb || strncmp(a, b, na) != 0) {
            return 0;
        }
        if (!a[na] != !b[nb])
            return 0;
        a += na + (a[na] ? 1 : 0);
        b += nb + (b[nb] ? 1 : 0);
    }
    return 1;
}

int main(void)
{
    /* the power-up lines first */
    {
        peg_core_t core;
        matrix_t m;
        peg_scan_t s;
        matrix_init(&m, 0xFFFF00000000FFFFull);
        matrix_scan(&m, 0, 0, &s);
        peg_init(&core, &s);
        out_len = 0;
        drain(&core);
        const char *want = "H " PEG_GREETING "\r\nS " START "\r\n";
        if (strcmp(out, want) != 0) {
            printf("FAIL power-up: got %s\n", out);
            return 1;
        }
        printf("ok   power-up: greeting and snapshot\n");
    }
    int failed = 0, n = (int)(sizeof CASES / sizeof CASES[0]);
    for (int i = 0; i < n; i++) {
        char got[8192];
        run(&CASES[i], got, sizeof got);
        if (matches(CASES[i].expect, got)) {
            printf("ok   %s\n", CASES[i].name);
        } else {
            failed++;
            printf("FAIL %s\n     want %s\n     got  %s\n", CASES[i].name, CASES[i].expect, got);
        }
    }
    /* The ghost case with the magnet arriving at every point of the scan period (every 5 us):
     * the ghosts and the peg are one E line, never a P line, wherever the bounce falls. */
    {
        int bad = 0;
        for (int us = 0; us < 1000; us += 5) {
            char script[64], got[8192];
            snprintf(script, sizeof script, "dc3;+c3@%d;w100", us);
            case_t k = {"ghost sweep", "c1 f3 c4", script, "E ghost:*"};
            run(&k, got, sizeof got);
            if (!matches(k.expect, got) || !strstr(got, "f1") || !strstr(got, "c3") ||
                !strstr(got, "f4")) {
                if (!bad++)
                    printf("FAIL ghost sweep at %d us: got %s\n", us, got);
            }
        }
        if (bad)
            failed++;
        else
            printf("ok   a missing diode's ghosts, the magnet arriving at every 5 us of a scan\n");
        n++;
    }
    printf("%d of %d cases passed (debounce %d ms)\n", n + 1 - failed, n + 1, PEG_DEBOUNCE_MS);
    return failed ? 1 : 0;
}

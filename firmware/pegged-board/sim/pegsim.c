//! sim/pegsim.c: the simulated microcontroller. It loads the real firmware image (.elf) into
//! simavr's ATmega328P at 16 MHz and wires it to the simulated switch matrix (matrix.c) as the
//! board does: it watches the rank pins (PD2-PD7, PC0, PC1) and plays the 74HC165 on PB0 (SH/LD),
//! PB1 (CLK) and PB2 (QH); it holds the buttons on PC2-PC5; it carries the UART's bytes.
//!
//! Two modes:
//!   --pty PATH    live: the UART is a pseudo-terminal linked at PATH (a serial port for
//!                 `tactus run` or `tactus board-test`); simulated time keeps pace with the wall
//!                 clock; commands come on standard input as they are written.
//!   --check FILE  scripted: commands and expectations from FILE, as fast as the host can run;
//!                 exit status 0 when every expectation held.
//!   --pegs HEX    the pegs at power-up (a snapshot's 16 hex digits; the start position if not
//!                 given); --do COMMAND: a command before power-up (a fault since assembly).
//! Commands (one a line, '#' starts a comment):
//!   lift SQ | place SQ         a hand lifts or places a peg (the reed bounces ~2 ms)
//!   wait MS                    let MS milliseconds of simulated time pass
//!   bounce PERCENT             scale the bounce (0 = clean contacts)
//!   chatter SQ MS              the switch of SQ chatters for MS
//!   stuck SQ open|closed|off   a switch stuck (or freed)
//!   diode SQ off|on            the diode of SQ missing (or back)
//!   ground FILE on|off         the wire of FILE touches ground (or not)
//!   press N | release N        button N (1-4)
//!   send TEXT                  the host sends TEXT and LF (check mode)
//!   sendraw TEXT               the same without LF; \n \r \\ escapes
//!   expect MS TEXT             the next line from the board starts with TEXT, within MS (check)
//!   quiet MS                   no line from the board for MS (check)
//!   quit
//! Standard output is an event log, one line each, times in simulated microseconds:
//!   T place SQ | T lift SQ | T first LINE (its first byte left) | T line LINE (its LF is on the
//!   wire) | T host LINE | T ok/FAIL ...
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <avr_ioport.h>
#include <avr_uart.h>
#include <sim_avr.h>
#include <sim_elf.h>
#include <sim_irq.h>

#include "matrix.h"

#define FREQ 16000000ULL
#define BYTE_US 87 /* one byte of 10 bits at 115200 baud */

static avr_t *avr;
static matrix_t m;
static uint8_t buttons;
static uint8_t shift_reg, pl_low, clk_high = 0;
static avr_irq_t *qh_irq, *uart_in, *button_irq[4];
static int pty_fd = -1, check = 0, failed = 0;
static FILE *script;
static char line_buf[512];
static size_t line_len;
static uint64_t line_first_us;
/* lines from the board not yet matched by `expect` (check mode) */
static char pending[64][260];
static int pending_n;
/* bytes for the board's UART */
static uint8_t host_q[4096];
static size_t host_head, host_tail;
static uint64_t next_host_us;

static uint64_t now_us(void) { return avr->cycle * 1000000ULL / FREQ; }

/* The ranks driven low: DDR set and PORT clear (ranks 1-6 on PD2-PD7, 7-8 on PC0-PC1). */
static uint8_t driven_ranks(void)
{
    uint8_t ddrd = avr->data[0x2A], portd = avr->data[0x2B];
    uint8_t ddrc = avr->data[0x27], portc = avr->data[0x28];
    uint8_t d = (uint8_t)((ddrd & ~portd) >> 2) & 0x3F;
    uint8_t c = (uint8_t)(ddrc & ~portc) & 0x03;
    return (uint8_t)(d | (c << 6));
}

static void set_qh(void) { avr_raise_irq(qh_irq, (shift_reg >> 7) & 1); }

/* SH/LD: low loads the files (pulled up: a closed switch reads 0). */
static void on_pl(avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq, (void)param;
    pl_low = !value;
    if (pl_low) {
        shift_reg = (uint8_t)~matrix_read(&m, driven_ranks(), now_us());
        if (getenv("PEGSIM_DEBUG"))
            fprintf(stderr, "%llu load ranks %02x files %02x\n", (unsigned long long)now_us(), driven_ranks(), (uint8_t)~shift_reg);
        set_qh();
    }
}

/* CLK: a rising edge shifts (SER is tied high). */
static void on_clk(avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq, (void)param;
    if (value && !clk_high && !pl_low) {
        shift_reg = (uint8_t)((shift_reg << 1) | 1);
        set_qh();
    }
    clk_high = value ? 1 : 0;
}

static void on_uart_out(avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq, (void)param;
    uint8_t b = (uint8_t)value;
    if (pty_fd >= 0) {
        ssize_t w = write(pty_fd, &b, 1);
        (void)w; /* nobody reading: the byte is lost, as on a real line */
    }
    if (line_len == 0)
        line_first_us = now_us();
    if (b == '\n') {
        line_buf[line_len] = 0;
        if (line_len && line_buf[line_len - 1] == '\r')
            line_buf[--line_len] = 0;
        printf("%llu first %s\n", (unsigned long long)line_first_us, line_buf);
        printf("%llu line %s\n", (unsigned long long)(now_us() + BYTE_US), line_buf);
        fflush(stdout);
        if (check && pending_n < 64)
            snprintf(pending[pending_n++], sizeof pending[0], "%s", line_buf);
        line_len = 0;
    } else if (line_len + 1 < sizeof line_buf) {
        line_buf[line_len++] = (char)b;
    }
}

/* A button pulls its pin low. simavr re-raises an input pin with its pull-up on every write to
 * the port, so the buttons are its "external" pin values, which win over the pull-up. */
static void set_buttons(void)
{
    avr_ioport_external_t ext = {.name = 'C', .mask = 0x3C, .value = (uint8_t)(~buttons << 2) & 0x3C};
    avr_ioctl(avr, AVR_IOCTL_IOPORT_SET_EXTERNAL('C'), &ext);
    for (int k = 0; k < 4; k++)
        avr_raise_irq(button_irq[k], !((buttons >> k) & 1));
}

static void host_bytes(const char *text, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        host_q[host_head] = (uint8_t)text[i];
        host_head = (host_head + 1) % sizeof host_q;
    }
}

static int square_or_die(const char *name)
{
    int sq = matrix_square(name);
    if (sq < 0) {
        fprintf(stderr, "pegsim: no square %s\n", name ? name : "(none)");
        exit(2);
    }
    return sq;
}

/* The script's state: waiting until a time, or for a line. */
static uint64_t resume_us;
static int expecting;
static uint64_t expect_until;
static char expect_text[256];
static int quiet;

static void fail(const char *what)
{
    printf("%llu FAIL %s\n", (unsigned long long)now_us(), what);
    fflush(stdout);
    failed = 1;
}

/* One command; returns 0 on quit. */
static int command(char *line)
{
    char *hash = strchr(line, '#');
    if (hash && strncmp(line, "send", 4) != 0)
        *hash = 0;
    line[strcspn(line, "\r\n")] = 0;
    char word[32] = "", a[256] = "", b[256] = "";
    int n = sscanf(line, "%31s %255s %255[^\n]", word, a, b);
    if (n <= 0)
        return 1;
    uint64_t t = now_us();
    if (!strcmp(word, "lift") || !strcmp(word, "place")) {
        int sq = square_or_die(a);
        matrix_set(&m, sq, word[0] == 'p', t);
        printf("%llu %s %s\n", (unsigned long long)t, word, a);
        fflush(stdout);
    } else if (!strcmp(word, "wait")) {
        resume_us = t + 1000ULL * strtoull(a, 0, 10);
    } else if (!strcmp(word, "bounce")) {
        m.bounce_scale = (uint32_t)atoi(a);
    } else if (!strcmp(word, "chatter")) {
        m.chatter_until_us[square_or_die(a)] = t + 1000ULL * strtoull(b, 0, 10);
    } else if (!strcmp(word, "stuck")) {
        m.stuck[square_or_die(a)] = !strcmp(b, "open") ? 1 : !strcmp(b, "closed") ? 2 : 0;
    } else if (!strcmp(word, "diode")) {
        m.nodiode[square_or_die(a)] = !strcmp(b, "off");
    } else if (!strcmp(word, "ground")) {
        uint8_t bit = (uint8_t)(1u << (a[0] - 'a'));
        m.grounded = !strcmp(b, "on") ? (m.grounded | bit) : (m.grounded & ~bit);
    } else if (!strcmp(word, "press") || !strcmp(word, "release")) {
        int k = atoi(a) - 1;
        if (k < 0 || k > 3) {
            fprintf(stderr, "pegsim: no button %s\n", a);
            exit(2);
        }
        buttons = word[0] == 'p' ? (uint8_t)(buttons | (1u << k)) : (uint8_t)(buttons & ~(1u << k));
        set_buttons();
    } else if (!strcmp(word, "send") || !strcmp(word, "sendraw")) {
        const char *text = line + strlen(word) + (line[strlen(word)] ? 1 : 0);
        char out[512];
        size_t k = 0;
        for (const char *p = text; *p && k + 2 < sizeof out; p++) {
            if (word[4] == 'r' && p[0] == '\\' && p[1]) {
                p++;
                out[k++] = *p == 'n' ? '\n' : *p == 'r' ? '\r' : *p;
            } else {
                out[k++] = *p;
            }
        }
        if (word[4] != 'r')
            out[k++] = '\n';
        host_bytes(out, k);
        printf("%llu host %s\n", (unsigned long long)t, text);
        fflush(stdout);
    } else if (!strcmp(word, "expect") || !strcmp(word, "quiet")) {
        expecting = 1;
        quiet = word[0] == 'q';
        expect_until = t + 1000ULL * strtoull(a, 0, 10);
        snprintf(expect_text, sizeof expect_text, "%s%s%s", n > 2 ? b : "", "", "");
        if (n > 2) {
            /* the text is everything after the time */
            const char *p = line;
            p += strspn(p, " \t");
            p += strcspn(p, " \t");
            p += strspn(p, " \t");
            p += strcspn(p, " \t");
            p += strspn(p, " \t");
            snprintf(expect_text, sizeof expect_text, "%s", p);
        }
    } else if (!strcmp(word, "quit")) {
        return 0;
    } else {
        fprintf(stderr, "pegsim: unknown command %s\n", word);
        exit(2);
    }
    return 1;
}

/* Whether the script may go on (it is not waiting). */
static int script_ready(void)
{
    uint64_t t = now_us();
    if (t < resume_us)
        return 0;
    if (!expecting)
        return 1;
    if (quiet) {
        if (pending_n) {
            char what[300];
            snprintf(what, sizeof what, "quiet: got %s", pending[0]);
            fail(what);
            pending_n = 0;
            expecting = 0;
            return 1;
        }
        if (t >= expect_until) {
            expecting = 0;
            return 1;
        }
        return 0;
    }
    if (pending_n) {
        char got[260];
        snprintf(got, sizeof got, "%s", pending[0]);
        memmove(pending[0], pending[1], sizeof pending[0] * (size_t)(--pending_n));
        char what[600];
        if (strncmp(got, expect_text, strlen(expect_text)) == 0) {
            printf("%llu ok %s\n", (unsigned long long)t, got);
        } else {
            snprintf(what, sizeof what, "expected \"%s\", got \"%s\"", expect_text, got);
            fail(what);
        }
        fflush(stdout);
        expecting = 0;
        return 1;
    }
    if (t >= expect_until) {
        char what[300];
        snprintf(what, sizeof what, "expected \"%s\": nothing came", expect_text);
        fail(what);
        expecting = 0;
        return 1;
    }
    return 0;
}

static void open_pty(const char *link)
{
    pty_fd = posix_openpt(O_RDWR | O_NOCTTY);
    if (pty_fd < 0 || grantpt(pty_fd) || unlockpt(pty_fd)) {
        perror("pegsim: pty");
        exit(1);
    }
    const char *name = ptsname(pty_fd);
    /* raw, no echo, until the host sets its own modes; a descriptor of our own keeps the line
     * up while the host closes and reopens it */
    int slave = open(name, O_RDWR | O_NOCTTY);
    struct termios tio;
    tcgetattr(slave, &tio);
    cfmakeraw(&tio);
    cfsetspeed(&tio, B115200);
    tcsetattr(slave, TCSANOW, &tio);
    fcntl(pty_fd, F_SETFL, O_NONBLOCK);
    unlink(link);
    if (symlink(name, link)) {
        perror("pegsim: symlink");
        exit(1);
    }
}

static uint64_t wall_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000ULL + (uint64_t)ts.tv_nsec / 1000;
}

/* simavr would sleep the host while the AVR sleeps; we keep time ourselves. */
static void no_sleep(avr_t *a, avr_cycle_count_t how_long) { (void)a, (void)how_long; }

int main(int argc, char **argv)
{
    const char *elf = "build/pegged-board.elf", *pty = 0, *check_file = 0;
    uint64_t occupancy = 0xFFFF00000000FFFFULL;
    const char *first[16];
    int n_first = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--elf") && i + 1 < argc)
            elf = argv[++i];
        else if (!strcmp(argv[i], "--pty") && i + 1 < argc)
            pty = argv[++i];
        else if (!strcmp(argv[i], "--check") && i + 1 < argc)
            check_file = argv[++i];
        else if (!strcmp(argv[i], "--pegs") && i + 1 < argc)
            occupancy = strtoull(argv[++i], 0, 16);
        else if (!strcmp(argv[i], "--do") && i + 1 < argc && n_first < 16)
            first[n_first++] = argv[++i];
        else {
            fprintf(stderr, "usage: pegsim --elf FILE (--pty PATH | --check FILE) [--pegs HEX] "
                            "[--do COMMAND]...\n");
            return 2;
        }
    }
    elf_firmware_t fw;
    memset(&fw, 0, sizeof fw);
    if (elf_read_firmware(elf, &fw)) {
        fprintf(stderr, "pegsim: cannot read %s\n", elf);
        return 1;
    }
    avr = avr_make_mcu_by_name("atmega328p");
    avr_init(avr);
    avr->frequency = FREQ;
    avr->sleep = no_sleep;
    avr->log = 0;
    avr_load_firmware(avr, &fw);
    matrix_init(&m, occupancy);
    uint32_t flags = 0;
    avr_ioctl(avr, AVR_IOCTL_UART_SET_FLAGS('0'), &flags);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUTPUT),
                            on_uart_out, 0);
    uart_in = avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_INPUT);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ('B'), 0), on_pl, 0);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ('B'), 1), on_clk, 0);
    qh_irq = avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ('B'), 2);
    for (int k = 0; k < 4; k++) {
        button_irq[k] = avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ('C'), 2 + k);
    }
    set_buttons();
    /* faults the board had before power-up (a diode never fitted, a file shorted in assembly) */
    for (int i = 0; i < n_first; i++) {
        char line[256];
        snprintf(line, sizeof line, "%s", first[i]);
        command(line);
    }
    if (check_file) {
        check = 1;
        script = fopen(check_file, "r");
        if (!script) {
            perror(check_file);
            return 1;
        }
    } else {
        if (!pty) {
            fprintf(stderr, "pegsim: --pty PATH or --check FILE\n");
            return 2;
        }
        open_pty(pty);
        script = stdin;
        fcntl(0, F_SETFL, O_NONBLOCK);
        printf("0 ready %s\n", pty);
        fflush(stdout);
    }
    uint64_t wall0 = wall_us(), next_poll = 0;
    char cmd[1024];
    size_t cmd_len = 0;
    int running = 1, eof = 0;
    while (running) {
        int state = avr_run(avr);
        if (state == cpu_Done || state == cpu_Crashed) {
            fprintf(stderr, "pegsim: the AVR stopped (%d)\n", state);
            return 1;
        }
        uint64_t t = now_us();
        if (t < next_poll)
            continue;
        next_poll = t + 100;
        /* the host's bytes, one per byte time */
        if (host_tail != host_head && t >= next_host_us) {
            avr_raise_irq(uart_in, host_q[host_tail]);
            host_tail = (host_tail + 1) % sizeof host_q;
            next_host_us = t + BYTE_US + 13;
        }
        if (!check) {
            /* keep pace with the wall clock */
            uint64_t w = wall_us() - wall0;
            if (t > w + 500)
                usleep((useconds_t)(t - w));
            uint8_t in[256];
            ssize_t got = read(pty_fd, in, sizeof in);
            if (got > 0) {
                host_bytes((const char *)in, (size_t)got);
                printf("%llu host %.*s", (unsigned long long)t, (int)got, in);
                if (in[got - 1] != '\n')
                    printf("\n");
                fflush(stdout);
            }
        }
        /* the script */
        while (running && script_ready()) {
            if (eof) {
                running = check ? 0 : running;
                if (!check)
                    usleep(0);
                break;
            }
            if (check) {
                if (!fgets(cmd, sizeof cmd, script)) {
                    eof = 1;
                    continue;
                }
                running = command(cmd);
            } else {
                /* a whole line from stdin, if one has come */
                ssize_t r = read(0, cmd + cmd_len, sizeof cmd - 1 - cmd_len);
                if (r == 0) {
                    eof = 1;
                    running = 0;
                    break;
                }
                if (r > 0)
                    cmd_len += (size_t)r;
                char *nl = memchr(cmd, '\n', cmd_len);
                if (!nl)
                    break;
                *nl = 0;
                running = command(cmd);
                size_t used = (size_t)(nl - cmd) + 1;
                memmove(cmd, nl + 1, cmd_len - used);
                cmd_len -= used;
            }
        }
    }
    if (check) {
        printf("%llu %s\n", (unsigned long long)now_us(), failed ? "FAILED" : "all checks passed");
        return failed ? 1 : 0;
    }
    if (pty)
        unlink(pty);
    return 0;
}

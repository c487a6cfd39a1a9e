//! peg_core.h: the hardware-free core of the pegged-board firmware. It owns everything between
//! the raw switch readings and the bytes on the serial line: the 20 ms debounce of each of the
//! 64 reed switches and the buttons, the fault checks (chatter, a grounded file, the ghost a
//! missing diode makes, overruns, over-long host lines), the lines of section 2 of
//! boards/README.md (`H`, `S`, `L`, `P`, `B`, `E`) and the host's commands (`?`, `V`). It never
//! touches a pin, a timer or a register: a board file (board_atmega328p.c) reads the matrix and
//! feeds it here once per scan, and moves bytes between the UART and the core. The host tests
//! (test/test_core.c) run exactly this code against a simulated matrix.
#ifndef PEG_CORE_H
#define PEG_CORE_H

#include <stdint.h>

#define PEG_GREETING "tactus-peg-avr 1.0"
/* Milliseconds (scans) a sensor must read the same before its change is reported. Overridable
 * only to prove that the tests notice its absence (`make test DEBOUNCE=0`). */
#ifndef PEG_DEBOUNCE_MS
#define PEG_DEBOUNCE_MS 20
#endif
/* Raw flips of one sensor without a settled reading before it is reported as chattering. */
#define PEG_CHATTER_FLIPS 24
/* Scans a file must read closed with no rank driven before it is reported grounded. */
#define PEG_GROUND_SCANS 3
/* A change is held while another sensor that began to change within a scan of it still
 * settles (a ghost and the peg that makes it), at most this many scans. */
#define PEG_GROUP_SCANS 40
/* A host line longer than this (without CR LF) is refused with an E line. */
#define PEG_HOST_LINE_MAX 32
/* Bytes waiting for the UART (256: the indices are single bytes, so that the UART's interrupt
 * may take bytes while the core adds lines, each side writing only its own index). */
#define PEG_TX_SIZE 256
#define PEG_BUTTONS 4

/* One scan of the matrix: raw[rank] has bit f set when the sensor of file f (a = bit 0) in that
 * rank (rank 1 = index 0) reads closed (a peg's magnet); idle has bit f set when file f reads
 * closed while no rank is driven (it never should); buttons has bit n-1 set while button n is
 * held. */
typedef struct {
    uint8_t raw[8];
    uint8_t idle;
    uint8_t buttons;
} peg_scan_t;

typedef struct {
    uint8_t state[8];      /* debounced occupancy, as last decided */
    uint8_t cand[8];       /* raw reading being timed */
    uint8_t stable[64];    /* scans the raw reading has held (saturating) */
    uint8_t flips[64];     /* raw flips since the last settled reading */
    uint8_t busy[8];       /* squares still being timed (read the same for less than 20 ms) */
    uint8_t chattering[8]; /* squares reported chattering, until they settle */
    uint8_t withheld[8];   /* squares whose changes are not reported (ghosts, grounded files) */
    uint8_t grounded;      /* files reported grounded */
    uint8_t ground_count[8];
    uint8_t btn_state, btn_cand;
    uint8_t btn_stable[PEG_BUTTONS];
    /* host line being read */
    char rx[PEG_HOST_LINE_MAX + 1];
    uint8_t rx_len;
    uint8_t rx_skip; /* discarding an over-long line up to its LF */
    /* lines to send */
    uint8_t tx[PEG_TX_SIZE];
    volatile uint8_t tx_head, tx_tail;
    uint8_t tx_lost;    /* a line did not fit: say so and send a snapshot when there is room */
    uint8_t rx_overrun; /* the board file lost host bytes */
    uint8_t resync[8];  /* per file: scans until a repaired file is reported again */
    uint8_t pend[64];   /* changes decided, not yet reported: square | 0x80 when placed */
    uint8_t pend_n, pend_age;
    uint16_t scan_no;   /* scans since power-up (wrapping) */
    uint16_t began[64]; /* the scan in which a sensor's reading first left its decided state */
} peg_core_t;

/* Power-up: the first scan is the truth; queues the greeting and the snapshot. */
void peg_init(peg_core_t *c, const peg_scan_t *first);
/* One scan, once per millisecond. */
void peg_scan(peg_core_t *c, const peg_scan_t *s);
/* One byte from the host. */
void peg_rx(peg_core_t *c, uint8_t byte);
/* The board file lost host bytes (its receive buffer was full). */
void peg_rx_overrun(peg_core_t *c);
/* The next byte for the UART, or -1 when there is none. */
int peg_tx_next(peg_core_t *c);
/* Whether bytes are waiting. */
int peg_tx_pending(const peg_core_t *c);
/* The occupancy as the snapshot reports it (bit 8*rank+file). */
uint64_t peg_occupancy(const peg_core_t *c);

#endif

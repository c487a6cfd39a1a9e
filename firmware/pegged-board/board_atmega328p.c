//! board_atmega328p.c: the pins of the reference board (an Arduino Uno or Nano, ATmega328P at
//! 16 MHz) and nothing else: it drives the eight rank lines, reads the eight file lines through
//! one 74HC165, reads four buttons, blinks the LED, runs the 1 ms scan tick and moves bytes
//! between the UART (115200 8N1) and the hardware-free core (peg_core.c), which decides every
//! line. Another microcontroller is another file like this one.
//!
//! Pin map (Arduino names):
//!   ranks 1..8  D2 D3 D4 D5 D6 D7 A0 A1  (PD2..PD7, PC0, PC1): the scanned rank is driven low,
//!               the others float (inputs without pull-up), so a missing diode cannot short them
//!   74HC165     D8 = SH/LD (PB0), D9 = CLK (PB1), D10 = QH (PB2); inputs A..H = files a..h,
//!               each pulled up by 10 kOhm; CLK INH and SER to ground
//!   buttons 1-4 A2 A3 A4 A5 (PC2..PC5) to ground, internal pull-ups
//!   LED         D13 (PB5): lit for 20 ms after each line sent
//!   UART        D0 RX, D1 TX (the USB serial chip of the Arduino)
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>
#include <util/delay.h>

#include "peg_core.h"

#define BAUD 115200UL
#define RX_SIZE 64

static volatile uint8_t tick;
static volatile uint8_t rx_buf[RX_SIZE];
static volatile uint8_t rx_head, rx_tail, rx_lost;
static peg_core_t core;

ISR(TIMER1_COMPA_vect) { tick = 1; }

ISR(USART_RX_vect)
{
    uint8_t b = UDR0;
    uint8_t next = (uint8_t)((rx_head + 1) % RX_SIZE);
    if (next == rx_tail) {
        rx_lost = 1;
        return;
    }
    rx_buf[rx_head] = b;
    rx_head = next;
}

static volatile uint8_t led;

/* The UART can take a byte: the next one of the core's lines. The queue is safe between this
 * interrupt and the main loop: single-byte indices, each written by one side only. */
ISR(USART_UDRE_vect)
{
    int b = peg_tx_next(&core);
    if (b < 0) {
        UCSR0B &= (uint8_t)~_BV(UDRIE0);
        return;
    }
    UDR0 = (uint8_t)b;
    if (b == '\n') {
        PORTB |= _BV(PB5);
        led = 20;
    }
}

/* Drive rank r (0..7) low, or none when r < 0; all others float. */
static void drive_rank(int8_t r)
{
    DDRD &= (uint8_t)~0xFC;
    PORTD &= (uint8_t)~0xFC;
    DDRC &= (uint8_t)~0x03;
    PORTC &= (uint8_t)~0x03;
    if (r >= 0 && r < 6)
        DDRD |= (uint8_t)(1u << (r + 2));
    else if (r >= 6)
        DDRC |= (uint8_t)(1u << (r - 6));
}

/* The eight files through the 74HC165: bit f set when file f reads low (a closed switch). */
static uint8_t read_files(void)
{
    _delay_us(3); /* the rank line settles */
    PORTB &= (uint8_t)~_BV(PB0); /* SH/LD low: load A..H */
    _delay_us(1);
    PORTB |= _BV(PB0);
    uint8_t v = 0;
    for (uint8_t i = 0; i < 8; i++) { /* QH shows H first */
        v = (uint8_t)((v << 1) | ((PINB >> PB2) & 1));
        PORTB |= _BV(PB1);
        PORTB &= (uint8_t)~_BV(PB1);
    }
    return (uint8_t)~v; /* pulled up: low means closed */
}

static void scan(peg_scan_t *s)
{
    for (int8_t r = 0; r < 8; r++) {
        drive_rank(r);
        s->raw[r] = read_files();
    }
    drive_rank(-1);
    s->idle = read_files();
    s->buttons = (uint8_t)((~PINC >> 2) & 0x0F);
}

int main(void)
{
    DDRB = _BV(PB0) | _BV(PB1) | _BV(PB5);
    PORTB = _BV(PB0); /* SH/LD idle high; QH is driven by the 165, no pull-up */
    DDRC = 0;
    PORTC = 0x3C; /* button pull-ups */
    drive_rank(-1);
    /* UART 115200 8N1, double speed (2.1% error at 16 MHz) */
    UCSR0A = _BV(U2X0);
    UBRR0 = (uint16_t)((F_CPU / (8 * BAUD)) - 1);
    UCSR0B = _BV(RXEN0) | _BV(TXEN0) | _BV(RXCIE0);
    UCSR0C = _BV(UCSZ01) | _BV(UCSZ00);
    /* Timer1 CTC: 1 ms */
    TCCR1A = 0;
    TCCR1B = _BV(WGM12) | _BV(CS11) | _BV(CS10); /* /64 */
    OCR1A = (uint16_t)(F_CPU / 64 / 1000 - 1);
    TIMSK1 = _BV(OCIE1A);

    peg_scan_t s;
    scan(&s);
    peg_init(&core, &s);
    sei();
    for (;;) {
        if (tick) {
            tick = 0;
            scan(&s);
            peg_scan(&core, &s);
            if (led && --led == 0)
                PORTB &= (uint8_t)~_BV(PB5);
        }
        while (rx_tail != rx_head) {
            uint8_t b = rx_buf[rx_tail];
            rx_tail = (uint8_t)((rx_tail + 1) % RX_SIZE);
            peg_rx(&core, b);
        }
        if (rx_lost) {
            rx_lost = 0;
            peg_rx_overrun(&core);
        }
        cli();
        /* the interrupt sends what is queued, then masks itself; unmasked only when there is
         * something to send, or it would wake the CPU at once, again and again */
        if (peg_tx_pending(&core))
            UCSR0B |= _BV(UDRIE0);
        if (!tick && rx_tail == rx_head) {
            sleep_enable();
            sei();
            sleep_cpu(); /* idle: the timer, the UART and their interrupts run on */
            sleep_disable();
        }
        sei();
    }
}

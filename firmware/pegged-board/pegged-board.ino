// pegged-board.ino: the Arduino IDE's entry to the same firmware. The IDE compiles every .c file
// of this folder with the sketch; board_atmega328p.c has its own main(), so the IDE's setup() and
// loop() are not used. Open this folder as a sketch, choose "Arduino Uno" (or Nano) and Upload;
// or use `make flash`. `make sketch` builds it with arduino-cli where that is installed.

/**
 * The pieces of JSON's grammar that `PartialJson` reads character by character: the number grammar
 * as a state machine over plain numbers, the escapes and literals, and hex digits. Pure functions
 * and tables, with no state of their own; not exported from the package.
 */
import { JsonValue } from '../types/events.js';

/** A literal's first letter, mapped to the whole word and the value it stands for. */
export const LITERALS: Readonly<Record<number, readonly [string, JsonValue]>> = {
  0x74: ['true', true],
  0x66: ['false', false],
  0x6e: ['null', null],
};

/** The letter after a backslash, mapped to the character it stands for (`\u` is read apart). */
export const ESCAPED: Readonly<Record<number, string>> = {
  0x22: '"',
  0x5c: '\\',
  0x2f: '/',
  0x62: '\b',
  0x66: '\f',
  0x6e: '\n',
  0x72: '\r',
  0x74: '\t',
};

/** The value of a hex digit (either case), or -1 for any other character. */
export function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x61 && c <= 0x66) return c - 0x57;
  if (c >= 0x41 && c <= 0x46) return c - 0x37;
  return -1;
}

// Where a number is in its grammar: -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?
// Plain numbers rather than a `const enum`, which isolated modules do not inline across the build.
const N_MINUS = 0;
const N_ZERO = 1;
const N_INT = 2;
const N_DOT = 3;
const N_FRACTION = 4;
const N_E = 5;
const N_EXPONENT_SIGN = 6;
const N_EXPONENT = 7;

/** What {@link numberStart} and {@link advanceNumber} answer for a character that is not part of the number. */
export const NOT_NUMBER = -1;

/** The state of a number whose first character is `c`, or {@link NOT_NUMBER} when no number starts with it. */
export function numberStart(c: number): number {
  if (c === 0x2d) return N_MINUS;
  if (c === 0x30) return N_ZERO;
  if (c >= 0x31 && c <= 0x39) return N_INT;
  return NOT_NUMBER;
}

/**
 * The state of a number in `state` once `c` is added to it, or {@link NOT_NUMBER} when `c` is not
 * part of it (it may end the number; {@link isNumberEnd} says whether the number is whole).
 */
export function advanceNumber(state: number, c: number): number {
  const digit = c >= 0x30 && c <= 0x39;
  switch (state) {
    case N_MINUS:
      if (!digit) return NOT_NUMBER;
      return c === 0x30 ? N_ZERO : N_INT;
    case N_ZERO:
    case N_INT:
      if (digit && state === N_INT) return N_INT;
      if (c === 0x2e) return N_DOT;
      if (c === 0x65 || c === 0x45) return N_E;
      return NOT_NUMBER; // a digit after a leading 0 ends the number, and is then refused
    case N_DOT:
      return digit ? N_FRACTION : NOT_NUMBER;
    case N_FRACTION:
      if (digit) return N_FRACTION;
      return c === 0x65 || c === 0x45 ? N_E : NOT_NUMBER;
    case N_E:
      if (c === 0x2b || c === 0x2d) return N_EXPONENT_SIGN;
      return digit ? N_EXPONENT : NOT_NUMBER;
    default:
      // N_EXPONENT_SIGN, N_EXPONENT
      return digit ? N_EXPONENT : NOT_NUMBER;
  }
}

/**
 * True when a digit leaves a number in `state` where it is: inside the digits of its integer part
 * (after a first digit other than 0), of its fraction or of its exponent.
 */
export function digitsKeepState(state: number): boolean {
  return state === N_INT || state === N_FRACTION || state === N_EXPONENT;
}

/** True when a number in `state` is whole: the text so far is a number as it stands. */
export function isNumberEnd(state: number): boolean {
  return state === N_ZERO || state === N_INT || state === N_FRACTION || state === N_EXPONENT;
}

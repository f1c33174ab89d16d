import type { NewCustomer } from '../modules/customers/index.js';

const FIRST = [
  'Ada',
  'Grace',
  'Alan',
  'Linus',
  'Margaret',
  'Ken',
  'Barbara',
  'Dennis',
  'Frances',
  'Edsger',
  'Radia',
  'Tim',
  'Hedy',
  'John',
  'Katherine',
  'Donald',
  'Shafi',
  'Leslie',
  'Sophie',
  'Niklaus',
];
const LAST = [
  'Lovelace',
  'Hopper',
  'Turing',
  'Torvalds',
  'Hamilton',
  'Thompson',
  'Liskov',
  'Ritchie',
  'Allen',
  'Dijkstra',
  'Perlman',
  'Berners-Lee',
  'Lamarr',
  'Backus',
  'Johnson',
  'Knuth',
  'Goldwasser',
  'Lamport',
  'Wilson',
  'Wirth',
];

/** Deterministic, plausible customers: the n-th one is always the same, so runs are comparable. */
export function sampleCustomer(n: number, createdAt?: Date, runTag = ''): NewCustomer {
  const first = FIRST[n % FIRST.length] as string;
  const last = LAST[Math.floor(n / FIRST.length) % LAST.length] as string;
  return {
    email: `${first}.${last}.${n}${runTag}@example.com`.toLowerCase(),
    first_name: first,
    last_name: last,
    phone: `+1555${String(1_000_000 + (n % 9_000_000)).padStart(7, '0')}`,
    created_at: createdAt,
  };
}

// `race-api keys`: the token signing keys. Rotation adds a key that signs from now
// on while older keys keep verifying the tokens they signed; retiring a key kills
// its tokens on every instance within 5 s.

import { createKey } from "../auth/key-ring.js";
import { printer, processIo, type CommandIo } from "./command-io.js";
import { listKeys, retireKey } from "../store/signing-keys.js";
import type { Pool } from "../store/pool.js";

export const KEYS_USAGE = `Usage: race-api keys <command>

Commands:
  list          the signing keys, newest first; the newest unretired key signs
  rotate        add a new signing key; tokens signed before keep working until they expire
  retire KID    stop accepting tokens signed with that key (within 5 s on every instance)
`;

export async function keysCommand(pool: Pool, args: string[], io: CommandIo = processIo): Promise<number> {
  const [command, ...rest] = args;
  const say = printer(io.stdout);
  switch (command) {
    case "list": {
      const keys = await listKeys(pool);
      if (keys.length === 0) say("no signing keys yet: the first token request creates one");
      for (const key of keys)
        say(
          `${key.kid}  ${key.alg}  created ${key.createdAt.toISOString()}  ${key.retiredAt ? `retired ${key.retiredAt.toISOString()}` : "active"}`,
        );
      return 0;
    }
    case "rotate":
      say(`new signing key ${await createKey(pool)}; it signs from now on, older keys still verify their tokens`);
      return 0;
    case "retire": {
      const [kid] = rest;
      if (kid === undefined || rest.length !== 1) {
        io.stderr.write(`race-api: usage: race-api keys retire KID\n`);
        return 2;
      }
      if (!(await retireKey(pool, kid))) {
        io.stderr.write(`race-api: no active signing key ${kid}\n`);
        return 1;
      }
      say(`retired ${kid}: tokens signed with it stop working within 5 s`);
      return 0;
    }
    default:
      io.stderr.write(KEYS_USAGE);
      return 2;
  }
}

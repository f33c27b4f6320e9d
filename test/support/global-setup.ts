// Runs once per `vitest run`: makes sure a MySQL-compatible server is there (the same
// bootstrap the demo uses) and hands its address to every test file.

import type { TestProject } from "vitest/node";
import { ensureLocalServer } from "../../src/setup/local-mariadb.js";
import { withDatabase } from "../../src/store/pool.js";

declare module "vitest" {
  export interface ProvidedContext {
    databaseServerUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<void> {
  const configured = process.env.DATABASE_URL;
  const server = configured ? withDatabase(configured, "") : await ensureLocalServer((message) => console.log(`[database] ${message}`));
  project.provide("databaseServerUrl", server);
}

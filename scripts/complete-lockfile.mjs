#!/usr/bin/env node
// Adds the platform-specific optional dependencies that this machine's npm leaves out of
// package-lock.json (npm/cli#4828) although its own `npm ci` then demands them
// ("Missing: @rollup/rollup-darwin-arm64@ from lock file"). For every package in the lock whose
// optionalDependencies are absent, the entry is filled from the registry (version, integrity,
// os/cpu/libc), marked optional, so `npm ci` validates and simply skips other platforms.
// Run after `npm install`: `node scripts/complete-lockfile.mjs`.
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";

const path = new URL("../package-lock.json", import.meta.url);
const lock = JSON.parse(readFileSync(path, "utf8"));
const packages = lock.packages;
let added = 0;

function view(spec) {
  try {
    const out = execFileSync("npm", ["view", spec, "version", "dist.integrity", "os", "cpu", "libc", "license", "engines", "--json"], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    });
    const meta = JSON.parse(out);
    return Array.isArray(meta) ? meta[meta.length - 1] : meta;
  } catch {
    return undefined;
  }
}

for (const [key, entry] of Object.entries(packages)) {
  if (key === "" || !entry.optionalDependencies) continue;
  const base = key.slice(0, key.lastIndexOf("node_modules/"));
  for (const [name, spec] of Object.entries(entry.optionalDependencies)) {
    // Resolution as node does it: nested first, then hoisted.
    if (packages[`${key}/node_modules/${name}`] || packages[`${base}node_modules/${name}`] || packages[`node_modules/${name}`]) continue;
    // This machine's registry mirror may not hold other platforms' builds of the newest
    // version: then the platform fields come from the newest build it has, the version from the
    // spec, and the entry carries no integrity (npm never downloads a package for another platform).
    let meta = view(`${name}@${spec}`);
    let exact = true;
    if (!meta) {
      meta = view(name);
      exact = false;
      if (!meta) throw new Error(`${name}: not in the registry at all`);
    }
    const filled = exact ? { version: meta.version, integrity: meta["dist.integrity"] } : { version: spec };
    for (const field of ["cpu", "os", "libc"]) if (meta[field]) filled[field] = [meta[field]].flat();
    if (meta.license) filled.license = meta.license;
    if (entry.dev) filled.dev = true;
    filled.optional = true;
    if (meta.engines) filled.engines = meta.engines;
    packages[`node_modules/${name}`] = filled;
    added += 1;
    console.log(`lockfile: + ${name}@${filled.version}${exact ? "" : " (not in this registry; platform fields from its newest build)"}`);
  }
}

lock.packages = Object.fromEntries(Object.entries(packages).sort(([a], [b]) => (a === "" ? -1 : b === "" ? 1 : a < b ? -1 : a > b ? 1 : 0)));
writeFileSync(path, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`lockfile: ${added} optional platform entr${added === 1 ? "y" : "ies"} added`);

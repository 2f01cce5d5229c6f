// Debian's Chromium, headless, for the checks in this folder.
import { chromium } from "playwright-core";

// The flags keep Chromium off the network: nothing here needs more than loopback.
export function launchChromium(executablePath) {
  return chromium.launch({
    executablePath,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
}

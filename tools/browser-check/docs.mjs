// Opens hindsight's API docs page in Debian's Chromium with every request off the server's
// origin refused, and prints (as JSON) how many operations Swagger UI drew, its title, and
// every off-origin URL the page tried: the page must work without a network.
//
//   node docs.mjs --url http://127.0.0.1:8765/docs
import { parseArgs } from "node:util";
import { launchChromium } from "./launch.mjs";

const { values } = parseArgs({
  options: {
    url: { type: "string" },
    chromium: { type: "string", default: "/usr/bin/chromium" },
  },
});

const browser = await launchChromium(values.chromium);
try {
  const page = await browser.newPage();
  const origin = new URL(values.url).origin;
  const offsite = [];
  await page.route("**/*", (route) => {
    const url = route.request().url();
    if (new URL(url).origin === origin) return route.continue();
    offsite.push(url);
    return route.abort();
  });
  await page.goto(values.url);
  await page.locator(".opblock").first().waitFor({ timeout: 60_000 });
  const operations = await page.locator(".opblock").count();
  const title = await page.locator(".info .title").first().innerText();
  console.log(JSON.stringify({ operations, title, offsite }));
} finally {
  await browser.close();
}

// Drives Neo4j Browser in Debian's Chromium, as an analyst would: connect, set the
// parameters, apply a style sheet with :style, run a query, save a screenshot, and print (as
// JSON) the fill colour and caption of every node the Browser drew.
//
//   node check.mjs --url http://127.0.0.1:7474/browser/ --bolt bolt://127.0.0.1:7687 \
//        --grass browser.grass --query query.cypher --param namespace=demo --out shot.png
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { launchChromium } from "./launch.mjs";

const { values } = parseArgs({
  options: {
    url: { type: "string" },
    bolt: { type: "string" },
    grass: { type: "string" },
    query: { type: "string" },
    param: { type: "string", multiple: true, default: [] },
    out: { type: "string" },
    chromium: { type: "string", default: "/usr/bin/chromium" },
  },
});

const browser = await launchChromium(values.chromium);
try {
  const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  const origin = new URL(values.url).origin;
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin });
  const page = await context.newPage();
  const url = `${values.url}?dbms=${encodeURIComponent(values.bolt)}&preselectAuthMethod=NO_AUTH`;
  await page.goto(url);
  await page.getByText("You have a working connection").waitFor({ timeout: 60_000 });

  const editor = page.locator('[data-testid="activeEditor"] textarea');
  const frames = page.locator('[data-testid="frame"]');
  // Pasted, as a person would: typed text goes through the editor's auto-closing of quotes
  // and brackets, which garbles a multi-line style sheet.
  async function run(command) {
    const before = await frames.count();
    await editor.focus();
    await page.evaluate((text) => navigator.clipboard.writeText(text), command);
    await page.keyboard.press("Control+V");
    await page.locator('[data-testid="editor-Run"]').click();
    await page.waitForFunction(
      (n) => document.querySelectorAll('[data-testid="frame"]').length > n, before,
      { timeout: 30_000 });
  }

  for (const param of values.param) {
    const [name, ...rest] = param.split("=");
    await run(`:param ${name} => ${JSON.stringify(rest.join("="))}`);
  }
  await run(`:style ${readFileSync(values.grass, "utf8")}`);
  await run(readFileSync(values.query, "utf8"));

  // The newest frame is on top; wait for the graph it draws to settle.
  const graph = frames.first().locator("svg g.node");
  try {
    await graph.first().waitFor({ timeout: 60_000 });
  } catch (error) {
    await page.screenshot({ path: values.out, fullPage: true });  // what the Browser showed
    throw error;
  }
  await page.waitForTimeout(3000);
  const nodes = await frames.first().locator("svg g.node").evaluateAll((elements) =>
    elements.map((node) => ({
      fill: node.querySelector("circle.b-outline")?.getAttribute("fill") ?? null,
      caption: Array.from(node.querySelectorAll("text")).map((t) => t.textContent).join(" "),
    })));
  await frames.first().screenshot({ path: values.out });
  console.log(JSON.stringify({ nodes }));
} finally {
  await browser.close();
}

// Opens a room in Hydrogen (the view SDK, bundled here by esbuild) in headless
// Chromium, logged in as a real user, and measures what tests/browser checks.
// Reads one JSON spec on stdin, writes one JSON report on stdout; screenshots go
// to spec.out. The assertions live in the Python test: this only looks.
import {build} from "esbuild";
import {chromium} from "playwright-core";
import {createServer} from "node:http";
import {mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from "node:fs";
import {tmpdir} from "node:os";
import {extname, join, normalize} from "node:path";
import {fileURLToPath} from "node:url";

const here = fileURLToPath(new URL(".", import.meta.url));
const modules = join(here, "node_modules");
const TYPES = {
    ".html": "text/html; charset=utf-8", ".js": "text/javascript", ".css": "text/css",
    ".wasm": "application/wasm", ".woff": "font/woff", ".woff2": "font/woff2",
    ".svg": "image/svg+xml", ".json": "application/json",
};
// URL prefix -> directory the page's files come from.
const ROOTS = {
    "/assets/": join(modules, "hydrogen-view-sdk/asset-build/assets"),
    "/olm/": join(modules, "@matrix-org/olm"),
};

async function readStdin() {
    const chunks = [];
    for await (const c of process.stdin) chunks.push(c);
    return JSON.parse(Buffer.concat(chunks).toString());
}

async function bundle() {
    const result = await build({
        entryPoints: [join(here, "page/app.js")],
        bundle: true, format: "esm", platform: "browser", write: false, logLevel: "error",
        // olm's emscripten loader names node's modules on a path a browser never takes.
        external: ["fs", "path", "crypto"],
    });
    return result.outputFiles[0].contents;
}

function serve(app) {
    const files = {
        "/": [join(here, "page/index.html"), null],
        "/app.js": [null, app],
        "/sw.js": [join(modules, "hydrogen-view-sdk/lib-build/sw.js"), null],
    };
    const server = createServer((req, res) => {
        const path = new URL(req.url, "http://x").pathname;
        let file = files[path]?.[0];
        const body = files[path]?.[1];
        for (const [prefix, dir] of Object.entries(ROOTS)) {
            if (path.startsWith(prefix)) {
                const rest = normalize(path.slice(prefix.length));
                if (!rest.startsWith("..")) file = join(dir, rest);
            }
        }
        try {
            const data = body ?? readFileSync(file);
            const type = TYPES[extname(file ?? path) || ".html"] ?? "application/octet-stream";
            res.writeHead(200, {"Content-Type": type, "Service-Worker-Allowed": "/"});
            res.end(data);
        } catch {
            res.writeHead(404).end();
        }
    });
    return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

// Runs in the page: every word (a run of letters and digits inside one text node)
// under `root`, with the lines its client rects fall on. A word whose rects sit on
// two lines was split mid-word ("Prov/ider"); a break after a hyphen or a slash
// splits no word. One running past the view's right edge was cut off.
function measureWords(root) {
    const viewRight = document.documentElement.clientWidth;
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    const split = [], overflowing = [];
    let count = 0;
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        for (const m of node.data.matchAll(/[\p{L}\p{N}]+/gu)) {
            const range = document.createRange();
            range.setStart(node, m.index);
            range.setEnd(node, m.index + m[0].length);
            const rects = [...range.getClientRects()].filter((r) => r.width > 0 && r.height > 0);
            if (!rects.length) continue;
            count++;
            // Two rects are on different lines when they do not overlap vertically.
            const lines = [];
            for (const r of rects) {
                if (!lines.some((l) => r.top < l.bottom - 1 && r.bottom > l.top + 1)) lines.push(r);
            }
            if (lines.length > 1) split.push({word: m[0], lines: lines.map((l) => Math.round(l.top))});
            if (rects.some((r) => r.right > viewRight + 0.5)) overflowing.push(m[0]);
        }
    }
    return {count, split, overflowing};
}

async function tile(page, eventId) {
    const li = page.locator(`li[data-event-id="${eventId}"]`).first();
    await li.waitFor({state: "attached", timeout: 20000});
    await li.scrollIntoViewIfNeeded();
    return li;
}

async function shoot(page, li, out, name) {
    await li.screenshot({path: join(out, `${name}-tile.png`)});
    await page.screenshot({path: join(out, `${name}.png`)});
}

async function main() {
    const spec = await readStdin();
    const started = Date.now();
    mkdirSync(spec.out, {recursive: true});
    const server = await serve(await bundle());
    const origin = `http://127.0.0.1:${server.address().port}`;
    // A fresh profile each run: no state of an earlier run reaches this one.
    const profile = mkdtempSync(join(tmpdir(), "roombot-chromium-"));
    const context = await chromium.launchPersistentContext(profile, {
        executablePath: spec.chromium,
        args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
               "--disable-background-networking", "--disable-component-update", "--disable-sync"],
        headless: true,
        viewport: {width: spec.width, height: spec.height},
        acceptDownloads: true,
    });
    const report = {console: []};
    try {
        const page = await context.newPage();
        page.on("console", (m) => { if (m.type() === "error") report.console.push(m.text()); });
        page.on("pageerror", (e) => report.console.push(String(e)));
        await page.goto(origin + "/");
        report.user = await page.evaluate((s) => window.openRoom(s), {
            homeserver: spec.homeserver, user: spec.user, password: spec.password, room: spec.room,
        });
        report.width = await page.evaluate(() => document.documentElement.clientWidth);

        // a. the chain of attempts
        const chain = await tile(page, spec.chain);
        report.chain = {
            items: await chain.locator("ol > li").count(),
            text: await chain.innerText(),
            ...(await chain.locator("ol").first().evaluate(measureWords)),
        };
        await shoot(page, chain, spec.out, "a-chain");

        // b. the long message's file event
        const file = await tile(page, spec.file);
        const button = file.locator("button.link").first();
        report.file = {
            text: await file.innerText(),
            button: await button.count() ? await button.innerText() : null,
            enabled: await button.count() ? await button.isEnabled() : false,
            card_text: await (await tile(page, spec.file_card)).innerText(),
        };
        await shoot(page, file, spec.out, "b-file");
        if (report.file.button !== null) {
            const waiting = page.waitForEvent("download", {timeout: 15000});
            await button.click();
            try {
                const download = await waiting;
                const saved = join(spec.out, "downloaded-" + download.suggestedFilename());
                await download.saveAs(saved);
                report.file.downloaded = {name: download.suggestedFilename(), path: saved};
            } catch (e) {
                report.file.downloaded = null;
                report.file.download_error = String(e);
                report.file.label_after = await button.innerText();
            }
        }

        // c. a card in its trigger's thread
        const card = await tile(page, spec.thread_card);
        const preview = card.locator(".ReplyPreviewView").first();
        const order = await page.evaluate(
            // Top-level tiles only: a reply's preview draws the replied event's tile inside.
            () => [...document.querySelectorAll("li[data-event-id]")]
                .filter((li) => !li.parentElement.closest("li[data-event-id]"))
                .map((li) => li.dataset.eventId));
        report.thread = {
            card_text: await card.innerText(),
            preview: await preview.count() ? await preview.innerText() : null,
            preview_link: await preview.count()
                ? await preview.locator("a.link").first().getAttribute("href") : null,
            trigger_index: order.indexOf(spec.trigger),
            card_index: order.indexOf(spec.thread_card),
        };
        await shoot(page, card, spec.out, "c-thread");

        // d. a card edited into a group card
        const group = await tile(page, spec.group_card);
        const groupEdit = page.locator(`li[data-event-id="${spec.group_edit}"]`).first();
        report.group = {
            card_text: await group.innerText(),
            edit_text: await groupEdit.count() ? await groupEdit.innerText() : null,
            card_index: order.indexOf(spec.group_card),
            edit_index: order.indexOf(spec.group_edit),
        };
        await shoot(page, (await groupEdit.count()) ? groupEdit : group, spec.out, "d-group");

    } finally {
        await context.close();
        server.close();
        rmSync(profile, {recursive: true, force: true});
    }
    report.seconds = (Date.now() - started) / 1000;
    writeFileSync(join(spec.out, "report.json"), JSON.stringify(report, null, 2));
    process.stdout.write(JSON.stringify(report));
}

main().catch((e) => {
    process.stderr.write(`${e.stack ?? e}\n`);
    process.exit(1);
});

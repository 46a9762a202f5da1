// The A2A JS SDK's server, for bench/serve.mjs: @a2a-js/sdk 1.3's express JSON-RPC handler
// over its InMemoryTaskStore, with an executor that completes each task at once. Listens on a
// free loopback port and prints it. Run by the bench; not a server to use.
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";

const nm = join(dirname(fileURLToPath(import.meta.url)), "node_modules");
const express = (await import(join(nm, "express", "index.js"))).default;
const sdk = await import(join(nm, "@a2a-js", "sdk", "dist", "server", "index.js"));
const ex = await import(join(nm, "@a2a-js", "sdk", "dist", "server", "express", "index.js"));

const { card, executor } = await import(join(dirname(fileURLToPath(import.meta.url)), "a2a-agent.mjs"));
const app = express();
app.use(express.json({ limit: "4mb" }));
app.use("/a2a", ex.jsonRpcHandler({ requestHandler: new sdk.DefaultRequestHandler(card, new sdk.InMemoryTaskStore(), executor), userBuilder: ex.UserBuilder.noAuthentication }));
const server = app.listen(0, "127.0.0.1", () => console.log(`listening on http://127.0.0.1:${server.address().port}/a2a`));
process.on("SIGTERM", () => server.close(() => process.exit(0)));

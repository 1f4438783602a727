// Worker threads, a child process and the file system: what a node build uses.
const { Worker } = require("worker_threads");
const { execFileSync } = require("child_process");
const fs = require("fs");
fs.writeFileSync("_node.txt", "written");
const child = execFileSync("/bin/sh", ["-c", "echo child"]).toString().trim();
const w = new Worker("require('worker_threads').parentPort.postMessage(6 * 7)", { eval: true });
w.on("message", (n) => { console.log(`hello from node: worker ${n}, ${child}, ${fs.readFileSync("_node.txt")}`); });

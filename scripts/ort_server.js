// One ONNX Runtime session held for scripts/compare_ort.py:
//   node ort_server.js ORT_MODULE_DIR MODEL.onnx INPUTS.json THREADS
// prints "ready" once loaded; each stdin line "run N" runs N inferences on the
// same inputs and prints the median milliseconds of one. Inputs: f32 in [0, 1),
// integer ids in [0, 4), as `dfc measure-performance` draws them.
'use strict';
const readline = require('readline');

function makeFeeds(ort, spec) {
  const feeds = {};
  for (const input of spec.inputs) {
    const count = input.shape.reduce((a, b) => a * b, 1);
    if (input.dtype === 'int64') {
      const data = new BigInt64Array(count);
      for (let i = 0; i < count; ++i) data[i] = BigInt(Math.floor(Math.random() * 4));
      feeds[input.name] = new ort.Tensor('int64', data, input.shape);
    } else {
      const data = new Float32Array(count);
      for (let i = 0; i < count; ++i) data[i] = Math.random();
      feeds[input.name] = new ort.Tensor('float32', data, input.shape);
    }
  }
  return feeds;
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

async function main() {
  const [moduleDir, model, inputsJson, threads] = process.argv.slice(2);
  const ort = require(moduleDir);
  const spec = JSON.parse(require('fs').readFileSync(inputsJson, 'utf8'));
  const session = await ort.InferenceSession.create(model, {
    intraOpNumThreads: Number(threads),
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
  });
  const feeds = makeFeeds(ort, spec);
  await session.run(feeds);
  console.log('ready');
  const lines = readline.createInterface({ input: process.stdin });
  for await (const line of lines) {
    const steps = Number(line.split(' ')[1]);
    const times = [];
    for (let i = 0; i < steps; ++i) {
      const t0 = process.hrtime.bigint();
      await session.run(feeds);
      times.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
    console.log(median(times).toFixed(4));
  }
}

main().catch((e) => {
  console.log('error: ' + (e && e.message ? e.message : e));
  process.exit(1);
});

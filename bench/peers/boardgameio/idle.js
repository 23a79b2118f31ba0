// Idle followed seats: K clients follow matches where nothing happens, on one transport, while the
// server's CPU is read and /healthz is timed. Usage:
//   node idle.js URL ws|sse|longpoll K SECONDS PIDS
// ws: a seat's WebSocket; sse: its event stream, read as it comes; longpoll: every wait at its
// full length (30 s), all issued at once and re-issued as they answer.
const fs = require('fs');
const WebSocket = require('ws');
const [base, transport, kArg, secondsArg, pidsArg] = process.argv.slice(2);
const K = Number(kArg);
const SECONDS = Number(secondsArg);
const PIDS = pidsArg.split(',').map(Number);
const PER_MATCH = 50;

function cpuSeconds() {
  let total = 0;
  for (const pid of PIDS) {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    total += (Number(fields[11]) + Number(fields[12])) / 100;
  }
  return total;
}

async function post(url, body) {
  const answer = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  return answer.json();
}

async function main() {
  const matches = [];
  for (let i = 0; i < Math.ceil(K / PER_MATCH); i++) {
    const made = await post(`${base}/v1/matches`, { game: 'witches', seats: [{ type: 'human' }, { type: 'human' }] });
    await post(`${base}/v1/matches/${made.id}/join`, { name: 'b' });
    matches.push({ id: made.id, version: made.version + 1 });
  }
  let open = 0;
  let stop = false;
  const follow = async (match) => {
    if (transport === 'ws') {
      await new Promise((resolve) => {
        const ws = new WebSocket(`${base.replace('http', 'ws')}/v1/matches/${match.id}/socket`);
        ws.on('open', () => { open += 1; resolve(); });
        ws.on('error', resolve);
      });
      return;
    }
    if (transport === 'sse') {
      try {
        const answer = await fetch(`${base}/v1/matches/${match.id}/events`, { headers: { Accept: 'text/event-stream' } });
        open += 1;
        const reader = answer.body.getReader();
        while (!stop) {
          const { done } = await reader.read();
          if (done) break;
        }
      } catch (error) { /* counted as not open */ }
      return;
    }
    open += 1;
    while (!stop) {
      try {
        await fetch(`${base}/v1/matches/${match.id}?after_version=${match.version + 5}&wait=30`).then((r) => r.arrayBuffer());
      } catch (error) { /* re-issue */ }
    }
  };
  for (let i = 0; i < K; i++) follow(matches[i % matches.length]);
  const deadline = Date.now() + 120000;
  while (open < K && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
  await new Promise((resolve) => setTimeout(resolve, 3000));
  const cpu0 = cpuSeconds();
  const t0 = performance.now();
  const health = [];
  let healthErrors = 0;
  while (performance.now() - t0 < SECONDS * 1000) {
    const started = performance.now();
    try {
      await fetch(`${base}/healthz`).then((r) => r.arrayBuffer());
      health.push(performance.now() - started);
    } catch (error) {
      healthErrors += 1; // a refused or reset connection: counted, and the probe goes on
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const seconds = (performance.now() - t0) / 1000;
  const cores = (cpuSeconds() - cpu0) / seconds;
  health.sort((a, b) => a - b);
  const at = (q) => health[Math.min(health.length - 1, Math.floor(q * health.length))];
  let rssKb = 0;
  for (const pid of PIDS) rssKb += Number(fs.readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+)/)[1]);
  console.log(JSON.stringify({ transport, followers: K, open, seconds, server_cores: cores, server_rss_mb: rssKb / 1024,
    healthz_p50_ms: at(0.5), healthz_p99_ms: at(0.99), healthz_n: health.length, healthz_errors: healthErrors }));
  stop = true;
  process.exit(0);
}

main();

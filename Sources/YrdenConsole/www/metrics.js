// Reading the gateway's Prometheus text (GET /metrics): samples, and quantiles from histogram buckets.

/** parsePrometheus(text) → [{name, labels, value}]; comments and malformed lines are skipped. */
export function parsePrometheus(text) {
  const samples = [];
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
    if (!match) continue;
    const labels = {};
    for (const [, key, raw] of (match[2] || '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
      labels[key] = raw.replace(/\\(.)/g, (_, c) => (c === 'n' ? '\n' : c));
    }
    const value = match[3] === '+Inf' ? Infinity : Number(match[3]);
    if (!Number.isNaN(value)) samples.push({ name: match[1], labels, value });
  }
  return samples;
}

/**
 * The q-quantile (0..1) of a histogram given as [{le, count}] cumulative buckets, interpolated linearly
 * inside the bucket that holds it, as Prometheus's histogram_quantile does. null without observations.
 */
export function histogramQuantile(q, buckets) {
  const sorted = [...buckets].sort((a, b) => a.le - b.le);
  const total = sorted.at(-1)?.count ?? 0;
  if (!total) return null;
  const rank = q * total;
  let lower = 0;
  let below = 0;
  for (const { le, count } of sorted) {
    if (count >= rank) {
      if (le === Infinity) return lower; // past the last finite bound: the best known value
      const inBucket = count - below;
      return inBucket ? lower + ((le - lower) * (rank - below)) / inBucket : le;
    }
    lower = le;
    below = count;
  }
  return lower;
}

/** Per server: {calls, errors, buckets} summed over methods and error kinds. */
export function perServer(samples) {
  const out = new Map();
  const entry = (server) => {
    if (!out.has(server)) out.set(server, { calls: 0, errors: 0, buckets: new Map() });
    return out.get(server);
  };
  for (const { name, labels, value } of samples) {
    if (!labels.server) continue;
    if (name === 'yrden_upstream_requests_total') entry(labels.server).calls += value;
    else if (name === 'yrden_upstream_errors_total') entry(labels.server).errors += value;
    else if (name === 'yrden_upstream_request_duration_seconds_bucket') {
      const le = labels.le === '+Inf' ? Infinity : Number(labels.le);
      const buckets = entry(labels.server).buckets;
      buckets.set(le, (buckets.get(le) || 0) + value);
    }
  }
  for (const stats of out.values()) {
    stats.buckets = [...stats.buckets].map(([le, count]) => ({ le, count }));
  }
  return out;
}

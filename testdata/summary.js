const regions = ["north", "south", "east", "west"];
const orders = [];
for (let i = 0; i < 1000; i++) {
  orders.push({
    id: i,
    customer: "cust-" + (i % 37),
    region: regions[i % regions.length],
    amount: ((i * 7919) % 10000) / 100,
    paid: i % 5 !== 0,
  });
}
const big = orders.filter(o => o.paid && o.amount > 25);
const lines = big.map(o => ({ who: o.customer.toUpperCase(), cents: Math.round(o.amount * 100) }));
const byRegion = {};
for (const o of big) byRegion[o.region] = (byRegion[o.region] || 0) + o.amount;
let top = regions[0];
for (const r of regions) if (byRegion[r] > byRegion[top]) top = r;
const total = lines.reduce((s, l) => s + l.cents, 0);
return { count: lines.length, first: lines[0].who, top, total };

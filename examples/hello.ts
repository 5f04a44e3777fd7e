// A small realistic program: shape some data, log progress, return a summary.
interface Order {
  id: number;
  customer: string;
  total: number;
  status: "open" | "shipped" | "cancelled";
}

const orders: Order[] = [
  { id: 1, customer: "ada", total: 120.5, status: "shipped" },
  { id: 2, customer: "grace", total: 80, status: "open" },
  { id: 3, customer: "ada", total: 42.25, status: "cancelled" },
  { id: 4, customer: "linus", total: 310, status: "shipped" },
];

const live = orders.filter((o) => o.status !== "cancelled");
console.log("live orders", live.length);

const byCustomer: Record<string, number> = {};
for (const o of live) byCustomer[o.customer] = (byCustomer[o.customer] ?? 0) + o.total;

await new Promise((resolve) => setTimeout(resolve, 10)); // timers wait in the host

return {
  revenue: live.reduce((sum, o) => sum + o.total, 0),
  top: Object.entries(byCustomer).sort((a, b) => b[1] - a[1])[0][0],
  byCustomer,
};

// Runs against the MCP reference server "everything", bound as the namespace
// `everything` (each of its tools is an async function):
//
//   coderun run --upstream everything="npx -y @modelcontextprotocol/server-everything@2026.8.31" examples/everything.ts
//
// Two calls run in parallel; a call that fails rejects with a ToolCallError
// naming the tool; the result is computed from what the tools returned.

const [echo, sum] = await Promise.all([
  everything.echo({ message: "hello from coderun" }),
  everything["get-sum"]({ a: 19, b: 23 }),
]);
console.log(echo);

// get-structured-content has an output schema, so it resolves to its
// structured result: an object, not text.
const weather = await everything["get-structured-content"]({ location: "Chicago" });

let rejected = "";
try {
  await everything["get-structured-content"]({ location: "Atlantis" });
} catch (e) {
  if (!(e instanceof ToolCallError)) throw e;
  rejected = e.toolName;
}

return {
  answer: Number(/is (-?\d+)/.exec(sum)![1]),
  weatherFields: Object.keys(weather).sort(),
  rejected,
};

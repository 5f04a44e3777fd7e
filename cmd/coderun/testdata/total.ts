// Reads the --input of run_test.go.
return input.orders.reduce((sum: number, o: { amount: number }) => sum + o.amount, 0)

// The input is frozen: this throws a TypeError.
input.orders.push({ amount: 1 })

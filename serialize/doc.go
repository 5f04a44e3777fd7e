// Package serialize holds coderun's lossless-JSON rules, the exact output-byte
// ledger, and the JavaScript-compatible formatting that runs in the guest.
package serialize

// Package serialize holds coderun's lossless-JSON rules, the exact output-byte
// ledger, and the JavaScript-compatible formatting that runs in the guest.
//
// Package serialize is part of coderun's engine. It is not an API: it has no
// compatibility promise, and may change in any release. Use package coderun.
package serialize

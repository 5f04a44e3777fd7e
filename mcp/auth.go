package mcp

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"strings"
)

// authRealm is the realm of the WWW-Authenticate challenge of a 401.
const authRealm = "coderun"

// requireToken returns next behind a check of "Authorization: Bearer
// want". A request without a bearer token gets 401 with the challenge
// `Bearer realm="coderun"`; one with a wrong token gets 401 with
// error="invalid_token" added ([RFC 6750, section 3]). The token is
// compared as SHA-256 digests in constant time, so that neither its bytes
// nor its length leak.
//
// [RFC 6750, section 3]: https://www.rfc-editor.org/rfc/rfc6750#section-3
func requireToken(want string, next http.Handler) http.Handler {
	wantSum := sha256.Sum256([]byte(want))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		scheme, token, _ := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
		token = strings.TrimSpace(token)
		if !strings.EqualFold(scheme, "Bearer") || token == "" {
			w.Header().Set("WWW-Authenticate", `Bearer realm="`+authRealm+`"`)
			http.Error(w, `Unauthorized: this server requires "Authorization: Bearer TOKEN"`, http.StatusUnauthorized)
			return
		}
		got := sha256.Sum256([]byte(token))
		if subtle.ConstantTimeCompare(got[:], wantSum[:]) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="`+authRealm+`", error="invalid_token", error_description="the bearer token is wrong"`)
			http.Error(w, "Unauthorized: the bearer token is wrong", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

package host

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/agentic-workspace/aw/engine/store"
)

// TokenPrefix starts every bearer token, so a leaked one is recognizable
// (and the structural scrubber redacts it from file content).
const TokenPrefix = "awh_"

// Token is a stored token's record: never the token itself, which exists
// only in the answer to add. The store keeps its SHA-256: a 256-bit
// random token needs no slow hash, and a stolen database yields no token.
type Token struct {
	ID        string `json:"id"`
	Tenant    string `json:"tenant"`
	Workspace string `json:"workspace"`
	Name      string `json:"name"`
	CreatedAt string `json:"createdAt"`
	RevokedAt string `json:"revokedAt,omitempty"`
}

func hashToken(t string) string {
	sum := sha256.Sum256([]byte(t))
	return hex.EncodeToString(sum[:])
}

// validName is a tenant, workspace or token name: letters, digits, '.',
// '_' or '-', starting with a letter or digit, at most 128 bytes.
func validName(s string) bool {
	if s == "" || len(s) > 128 {
		return false
	}
	for i, c := range s {
		alnum := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		if !alnum && (i == 0 || c != '.' && c != '_' && c != '-') {
			return false
		}
	}
	return true
}

// AddToken mints a token for {tenant, workspace} and returns its record
// and the token (shown once).
func (d *DB) AddToken(ctx context.Context, tenant, workspace, name string) (Token, string, error) {
	for what, v := range map[string]string{"tenant": tenant, "workspace": workspace} {
		if !validName(v) {
			return Token{}, "", fmt.Errorf("--%s %q must be letters, digits, '.', '_' or '-', starting with a letter or digit, at most 128 bytes", what, clip(v, 100))
		}
	}
	id := store.NewID("token")
	if name == "" {
		name = id
	}
	if !validName(name) {
		return Token{}, "", fmt.Errorf("--name %q must be letters, digits, '.', '_' or '-', starting with a letter or digit, at most 128 bytes", clip(name, 100))
	}
	var raw [32]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return Token{}, "", err
	}
	secret := TokenPrefix + base64.RawURLEncoding.EncodeToString(raw[:])
	now := time.Now()
	if _, err := d.sql.ExecContext(ctx, d.q(`INSERT INTO tokens (id, hash, tenant, workspace, name, created_at) VALUES (?, ?, ?, ?, ?, ?)`),
		id, hashToken(secret), tenant, workspace, name, now.UnixMicro()); err != nil {
		return Token{}, "", err
	}
	return Token{ID: id, Tenant: tenant, Workspace: workspace, Name: name, CreatedAt: now.UTC().Format(time.RFC3339Nano)}, secret, nil
}

// Tokens lists every token record, newest first.
func (d *DB) Tokens(ctx context.Context) ([]Token, error) {
	rows, err := d.sql.QueryContext(ctx, `SELECT id, tenant, workspace, name, created_at, revoked_at FROM tokens ORDER BY created_at DESC, id DESC`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Token{}
	for rows.Next() {
		var t Token
		var created int64
		var revoked sql.NullInt64
		if err := rows.Scan(&t.ID, &t.Tenant, &t.Workspace, &t.Name, &created, &revoked); err != nil {
			return nil, err
		}
		t.CreatedAt = stamp(created)
		if revoked.Valid {
			t.RevokedAt = stamp(revoked.Int64)
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// ErrNoToken: revoke named no token.
var ErrNoToken = errors.New("no such token")

// RevokeToken revokes a token by id or name; revoking twice is a no-op
// that reports the first revocation.
func (d *DB) RevokeToken(ctx context.Context, idOrName string) (Token, bool, error) {
	now := time.Now().UnixMicro()
	res, err := d.sql.ExecContext(ctx, d.q(`UPDATE tokens SET revoked_at = ? WHERE (id = ? OR name = ?) AND revoked_at IS NULL`), now, idOrName, idOrName)
	if err != nil {
		return Token{}, false, err
	}
	n, _ := res.RowsAffected()
	list, err := d.Tokens(ctx)
	if err != nil {
		return Token{}, false, err
	}
	for _, t := range list {
		if t.ID == idOrName || t.Name == idOrName {
			return t, n > 0, nil
		}
	}
	return Token{}, false, ErrNoToken
}

// Authenticate maps an Authorization header to its principal. Every
// refusal is the same 401, so a caller learns nothing about which tokens
// exist.
func (d *DB) Authenticate(ctx context.Context, header string) (Principal, error) {
	refuse := apiError(http.StatusUnauthorized, "unauthorized",
		"send Authorization: Bearer <token> with a token this host issued and has not revoked (a human creates one with `aw serve token add`)")
	secret, ok := strings.CutPrefix(header, "Bearer ")
	secret = strings.TrimSpace(secret)
	if !ok || !strings.HasPrefix(secret, TokenPrefix) || len(secret) > 200 {
		return Principal{}, refuse
	}
	var p Principal
	err := d.sql.QueryRowContext(ctx, d.q(`SELECT id, tenant, workspace, name FROM tokens WHERE hash = ? AND revoked_at IS NULL`), hashToken(secret)).
		Scan(&p.TokenID, &p.Tenant, &p.Workspace, &p.Name)
	if errors.Is(err, sql.ErrNoRows) {
		return Principal{}, refuse
	}
	return p, err
}

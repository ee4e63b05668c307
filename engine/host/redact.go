package host

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
)

// Secret is a value registered for WSR-1: its id (what [REDACTED:<id>]
// names) and its plaintext.
type Secret struct {
	ID    string
	Value string
}

// MinSecretBytes: a shorter registered value is refused, because
// redacting it would rewrite ordinary text, and what was redacted would
// tell which short string the secret is.
const MinSecretBytes = 8

// SecretFromEnv registers the value of an environment variable; its id is
// env.NAME.
func SecretFromEnv(name string, getenv func(string) string) (Secret, error) {
	v := strings.TrimSpace(getenv(name))
	if v == "" {
		return Secret{}, fmt.Errorf("--secret-env %s: the variable is unset or empty", name)
	}
	if len(v) < MinSecretBytes {
		return Secret{}, fmt.Errorf("--secret-env %s: the value is shorter than %d bytes, too short to redact safely", name, MinSecretBytes)
	}
	return Secret{ID: "env." + name, Value: v}, nil
}

// SecretFromFile registers a file's content (surrounding whitespace
// dropped); its id is file.BASENAME.
func SecretFromFile(path string) (Secret, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return Secret{}, fmt.Errorf("--secret-file %s: %v", path, err)
	}
	v := strings.TrimSpace(string(raw))
	if len(v) < MinSecretBytes {
		return Secret{}, fmt.Errorf("--secret-file %s: the value is shorter than %d bytes, too short to redact safely", path, MinSecretBytes)
	}
	return Secret{ID: "file." + filepath.Base(path), Value: v}, nil
}

// Redactor replaces registered secrets, then secret-shaped values, with
// [REDACTED:<id>] before a write is persisted (WSR-1).
type Redactor struct {
	secrets []Secret // longest first, so a secret containing another wins
}

// NewRedactor returns a redactor of the registered secrets.
func NewRedactor(secrets []Secret) *Redactor {
	s := append([]Secret(nil), secrets...)
	sort.SliceStable(s, func(i, j int) bool { return len(s[i].Value) > len(s[j].Value) })
	return &Redactor{secrets: s}
}

// shapes are the structural scrubber's patterns: what a key or a token
// looks like even when nobody registered it. Compiled on first use, not
// at package init (init runs on every aw call).
var shapes = sync.OnceValue(func() []struct {
	id string
	re *regexp.Regexp
} {
	list := []struct{ id, re string }{
		{"private-key", `-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY-----`},
		{"aws-access-key", `\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`},
		{"github-token", `\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b`},
		{"openai-key", `\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}\b`},
		{"anthropic-key", `\bsk-ant-[A-Za-z0-9_-]{20,}\b`},
		{"slack-token", `\bxox[abprs]-[A-Za-z0-9-]{10,}\b`},
		{"google-api-key", `\bAIza[0-9A-Za-z_-]{35}\b`},
		{"aw-host-token", `\b` + TokenPrefix + `[A-Za-z0-9_-]{40,}`},
		{"jwt", `\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`},
		{"bearer-token", `(?i)\bbearer\s+[A-Za-z0-9._~+/-]{20,}=*`},
	}
	out := make([]struct {
		id string
		re *regexp.Regexp
	}, len(list))
	for i, s := range list {
		out[i].id, out[i].re = s.id, regexp.MustCompile(s.re)
	}
	return out
})

// Apply returns content with every secret replaced and the ids replaced,
// sorted and distinct.
func (r *Redactor) Apply(content string) (string, []string) {
	seen := map[string]bool{}
	for _, s := range r.secrets {
		if strings.Contains(content, s.Value) {
			content = strings.ReplaceAll(content, s.Value, "[REDACTED:"+s.ID+"]")
			seen[s.ID] = true
		}
	}
	for _, sh := range shapes() {
		if sh.re.MatchString(content) {
			content = sh.re.ReplaceAllLiteralString(content, "[REDACTED:"+sh.id+"]")
			seen[sh.id] = true
		}
	}
	ids := make([]string, 0, len(seen))
	for id := range seen {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return content, ids
}

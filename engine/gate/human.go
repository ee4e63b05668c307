package gate

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/store"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// TokenPath is the approver token file: $XDG_CONFIG_HOME/aw/approver.token.
func TokenPath(ws *workspace.Workspace) string {
	if ws.ConfigHome == "" {
		return ""
	}
	return filepath.Join(ws.ConfigHome, "aw", "approver.token")
}

// RequireHuman lets a human verb (approval accept/deny, config set, gc, ...)
// run only for a caller at the controlling terminal (stdin a terminal and
// /dev/tty opens) or one holding the approver token. The token file is
// trusted only outside the workspace and allowPaths roots, owned by the
// current user and unreadable by others, so an agent that can write files
// through aw cannot mint its own approver.
func RequireHuman(ws *workspace.Workspace, verb string) error {
	if ws.Caller.Terminal {
		return nil
	}
	refuse := func(why string) error {
		return envelope.Errorf(envelope.HumanRequired,
			"%s is a human verb: run it in your own terminal, or set AW_APPROVER_TOKEN to the token in %s (created with `aw approval token` on your terminal)%s", verb, displayToken(ws), why)
	}
	if ws.Caller.ApproverToken == "" {
		return refuse("")
	}
	path := TokenPath(ws)
	if path == "" {
		return refuse("; no config directory is known ($XDG_CONFIG_HOME and $HOME are unset)")
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return refuse("; the token file cannot be read")
	}
	if ok, why := ws.TrustedUserFile(path); !ok {
		return refuse("; the token file is ignored because " + why)
	}
	want := strings.TrimSpace(string(raw))
	if want == "" || subtle.ConstantTimeCompare([]byte(want), []byte(strings.TrimSpace(ws.Caller.ApproverToken))) != 1 {
		return refuse("; AW_APPROVER_TOKEN does not match the token file")
	}
	return nil
}

func displayToken(ws *workspace.Workspace) string {
	if p := TokenPath(ws); p != "" {
		return p
	}
	return "$XDG_CONFIG_HOME/aw/approver.token"
}

// MintToken writes a fresh approver token (0600) and returns it. Only a
// caller on a terminal may mint one: a token holder must not be able to
// replace the human's token.
func MintToken(ws *workspace.Workspace) (string, string, error) {
	if !ws.Caller.Terminal {
		return "", "", envelope.Errorf(envelope.HumanRequired, "`aw approval token` creates the approver token and runs only in your own terminal")
	}
	path := TokenPath(ws)
	if path == "" {
		return "", "", envelope.Errorf(envelope.InvalidInput, "no config directory: set XDG_CONFIG_HOME or HOME")
	}
	if _, err := os.Stat(filepath.Dir(path)); errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return "", "", envelope.Errorf(envelope.Internal, "cannot create %s: %v", filepath.Dir(path), err)
		}
	}
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", "", err
	}
	token := hex.EncodeToString(b[:])
	if err := store.WriteFile(path, []byte(token+"\n"), 0o600); err != nil {
		return "", "", err
	}
	if ok, why := ws.TrustedUserFile(path); !ok {
		os.Remove(path)
		return "", "", envelope.Errorf(envelope.InvalidInput, "the token file %s would be ignored because %s; set XDG_CONFIG_HOME to a directory outside the workspace", path, why)
	}
	return token, path, nil
}

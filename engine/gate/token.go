package gate

import (
	"context"

	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// TokenRequest takes no arguments.
type TokenRequest struct{}

// Token creates (or replaces) the approver token for harnesses and scripts
// the human owns. It runs only on the human's terminal.
func Token(ctx context.Context, ws *workspace.Workspace, req *TokenRequest) (envelope.Envelope, error) {
	token, path, err := MintToken(ws)
	if err != nil {
		return envelope.Envelope{}, err
	}
	env := envelope.New("", "Wrote a new approver token to "+path+" (mode 0600). Give it to a harness you own as AW_APPROVER_TOKEN; never to the agent.",
		map[string]string{"path": path, "token": token})
	env.Omit("data.token")
	return env, nil
}

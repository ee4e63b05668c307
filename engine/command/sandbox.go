package command

import (
	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/sandbox"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// ReasonSandbox is details.reason of a command refused because
// commands.sandbox is require and no OS sandbox is available.
const ReasonSandbox = sandbox.ReasonUnavailable

// confine wraps the job's argv in the OS sandbox (commands.sandbox): the
// job keeps the argv it shows, and records what really runs (Spawn) and
// what the sandbox enforced.
func confine(ws *workspace.Workspace, j *Job, cwdAbs string) error {
	mode := sandbox.Mode(ws.Settings.Commands.Sandbox)
	var p *sandbox.Policy
	if mode != sandbox.Off {
		var err error
		if p, err = sandbox.For(ws, cwdAbs, spawnEnv(ws, "")); err != nil {
			return sandboxError(err)
		}
	}
	spawn, rep, err := sandbox.Wrap(p, mode, j.Argv)
	if err != nil {
		return sandboxError(err)
	}
	j.Spawn, j.Sandbox = spawn, &rep
	return nil
}

func sandboxError(err error) error {
	return sandbox.Refusal(err, envelope.CommandDenied, "commands")
}

// sandboxFact is the line every command envelope carries about the sandbox.
func sandboxFact(env *envelope.Envelope, j *Job) {
	if j.Sandbox != nil {
		env.Fact("%s", j.Sandbox.Summary())
	}
}

package policy

import (
	"context"
	"fmt"
	"strings"

	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// CheckCommandRequest is policy.check_command's argument object: an argv
// (argv, or executable and args as workspace_command takes them) or a line.
type CheckCommandRequest struct {
	Argv       []string `json:"argv,omitempty" doc:"the whole command as an argv (executable first); or give executable and args, or line"`
	Executable string   `json:"executable,omitempty" doc:"the program to check, a name looked up on PATH or a workspace path"`
	Args       []string `json:"args,omitempty" doc:"its arguments, one token each (with executable)"`
	Line       string   `json:"line,omitempty" doc:"a command line instead of an argv: tokenized, or parsed as POSIX sh when commands.interpreter is sh"`
	Cwd        string   `json:"cwd,omitempty" doc:"directory the command would start in, relative to the workspace root (default: the root)"`
}

// CheckCommand answers whether a command may run, without running it. The
// answer is the envelope's data (the verdict, as the command would meet it), so a
// refusal is still ok:true: the question was answered. engine/command
// returns the same verdict as a COMMAND_DENIED error when it refuses.
func CheckCommand(ctx context.Context, ws *workspace.Workspace, req *CheckCommandRequest) (envelope.Envelope, error) {
	argv := req.Argv
	if req.Executable != "" {
		if len(argv) > 0 {
			return envelope.Envelope{}, envelope.Errorf(envelope.InvalidInput, "give argv or executable and args, not both")
		}
		argv = append([]string{req.Executable}, req.Args...)
	} else if len(req.Args) > 0 {
		return envelope.Envelope{}, envelope.Errorf(envelope.InvalidInput, "args need an executable: pass executable too, or the whole argv")
	}
	switch {
	case len(argv) > 0 && req.Line != "":
		return envelope.Envelope{}, envelope.Errorf(envelope.InvalidInput, "give an argv or a line, not both: `aw policy check-command -- go test ./...` or `aw policy check-command --line 'go test ./...'`")
	case len(argv) == 0 && req.Line == "":
		return envelope.Envelope{}, envelope.Errorf(envelope.InvalidInput, "nothing to check: pass an argv after -- or a line with --line")
	}
	v := Check(ws, Request{Argv: argv, Line: req.Line, Cwd: req.Cwd})
	what := req.Line
	if len(argv) > 0 {
		what = shellJoin(argv)
	}
	var env envelope.Envelope
	if v.Allowed {
		how := "as an argv, without a shell"
		if v.Shell {
			how = "through /bin/sh (interpreter sh)"
		}
		if v.Canonical != "" {
			what = v.Canonical // what /bin/sh would receive
			if v.Canonical != req.Line {
				how += ", re-printed from the submitted line (data.canonical)"
			}
		}
		env = envelope.New("", fmt.Sprintf("Allowed: `%s` would run %s (%d command(s) checked).", clip(what), how, len(v.Commands)), v)
		env.Fact("allowed: %s", clip(what))
	} else {
		env = envelope.New("", fmt.Sprintf("Refused (%s): %s", v.Reason, v.Message), v)
		env.Fact("refused (%s): %s", v.Reason, clip(what))
		if v.Executable != "" {
			env.Fact("executable: %s", v.Executable)
		}
		if v.Path != "" {
			env.Fact("path: %s", v.Path)
		}
	}
	env.Retention.Importance = envelope.Low
	env.Omit("data.commands", "data.paths")
	return env, nil
}

func clip(s string) string {
	s = strings.ReplaceAll(s, "\n", "⏎")
	return envelope.Clip(s, 200)
}

// CheckPathRequest is policy.check_path's argument object.
type CheckPathRequest struct {
	Path  string `json:"path" doc:"the path to check, relative to the workspace root or absolute"`
	Write bool   `json:"write,omitempty" doc:"check writing it (default: reading it)"`
}

// PathVerdict is policy.check_path's data.
type PathVerdict struct {
	Path    string `json:"path"`              // root-relative, as the jail resolved it
	Access  string `json:"access"`            // read or write
	Allowed bool   `json:"allowed"`           // the jail lets a tool do that
	Code    string `json:"code,omitempty"`    // PATH_ESCAPE or PROTECTED_PATH when refused
	Message string `json:"message,omitempty"` // why, and what to use instead
	Outside bool   `json:"outside,omitempty"` // under an allowPaths root (read-only)
}

// CheckPath answers whether a tool may read (or write) a path: the jail's
// verdict, with symlinks resolved, as ok:true data.
func CheckPath(ctx context.Context, ws *workspace.Workspace, req *CheckPathRequest) (envelope.Envelope, error) {
	if req.Path == "" {
		return envelope.Envelope{}, envelope.Errorf(envelope.InvalidInput, "pass the path to check, e.g. `aw policy check-path src/main.go --write`")
	}
	access, acc := "read", workspace.Read
	if req.Write {
		access, acc = "write", workspace.Write
	}
	pv := PathVerdict{Path: req.Path, Access: access}
	p, err := ws.Jail.Resolve(req.Path, acc)
	if err != nil {
		e, ok := err.(*envelope.Error)
		if !ok {
			return envelope.Envelope{}, err
		}
		pv.Code, pv.Message = string(e.Code), e.Message
		env := envelope.New("", fmt.Sprintf("Refused (%s): %s", e.Code, e.Message), pv)
		env.Fact("%s refused for %s: %s", access, req.Path, e.Code)
		env.Retention.Importance = envelope.Low
		return env, nil
	}
	pv.Allowed, pv.Path, pv.Outside = true, p.Rel, p.Outside
	if pv.Path == "" {
		pv.Path = "."
	}
	env := envelope.New("", fmt.Sprintf("Allowed: %s may be %s.", pv.Path, map[bool]string{false: "read", true: "read and written"}[req.Write]), pv)
	env.Fact("%s allowed for %s", access, pv.Path)
	env.Retention.Importance = envelope.Low
	return env, nil
}

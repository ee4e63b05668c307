package command

// TEMPORARY FALLBACK — remove when engine/policy lands Check and Env.
// engine/policy is being written at the same time; until policy.Check and
// policy.Env exist this file stands in with the minimum: allow-listed
// executable basenames, argv mode only, the inheritEnv/env environment.

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/agentic-workspace/aw/engine/policy"
	"github.com/agentic-workspace/aw/engine/workspace"
)

func policyCheck(ws *workspace.Workspace, req policy.Request) policy.Verdict {
	argv := req.Argv
	if req.Line != "" {
		if strings.ContainsAny(req.Line, "|&;<>()$`\\\"'*?[]#~=%{}\n") {
			return policy.Verdict{Reason: policy.Metacharacter, Message: "fallback policy: metacharacters are refused"}
		}
		argv = strings.Fields(req.Line)
	}
	if len(argv) == 0 {
		return policy.Verdict{Reason: policy.NotAllowed, Message: "nothing to run"}
	}
	base := filepath.Base(argv[0])
	for _, d := range ws.Settings.Commands.Deny {
		if d == base {
			return policy.Verdict{Reason: policy.DeniedExecutable, Message: base + " is denied", Executable: base}
		}
	}
	for _, a := range ws.Settings.Commands.Allow {
		if a == base {
			return policy.Verdict{Allowed: true, Executable: base, Argv: argv, Commands: [][]string{argv}, Paths: []string{}}
		}
	}
	return policy.Verdict{Reason: policy.NotAllowed, Executable: base,
		Message: base + " is not on commands.allow; a human can allow it with `aw config set commands.allow '[\"" + base + "\"]'`"}
}

func policyEnvironment(ws *workspace.Workspace) []string {
	var out []string
	for _, k := range ws.Settings.Commands.InheritEnv {
		if v, ok := os.LookupEnv(k); ok {
			out = append(out, k+"="+v)
		}
	}
	for k, v := range ws.Settings.Commands.Env {
		out = append(out, k+"="+v)
	}
	return out
}

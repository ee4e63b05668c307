package command

import (
	"strings"

	"github.com/agentic-workspace/aw/engine/policy"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// checkPolicy and policyEnv are the two calls into engine/policy: the
// verdict before anything is spawned, and the spawned environment.
var (
	checkPolicy = policy.Check
	policyEnv   = policy.Env
)

// spawnEnv is the environment a command gets: the policy's (inheritEnv
// picks plus env, dangerous variables stripped), never aw's own wholesale,
// never the approver token, and AW_JOB_ID naming the job.
func spawnEnv(ws *workspace.Workspace, jobID string) []string {
	var out []string
	for _, kv := range policyEnv(ws) {
		k, _, _ := strings.Cut(kv, "=")
		if k == "AW_APPROVER_TOKEN" || k == "AW_JOB_ID" {
			continue
		}
		out = append(out, kv)
	}
	if jobID != "" {
		out = append(out, "AW_JOB_ID="+jobID)
	}
	// Every git a command starts (make, a test, a hook) refuses to discover
	// a bare repository on its own: a directory the agent shaped like one
	// would otherwise hand git its configuration (core.fsmonitor, aliases).
	// The GIT_* variables of the parent were stripped above.
	out = append(out, "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=safe.bareRepository", "GIT_CONFIG_VALUE_0=explicit")
	return out
}

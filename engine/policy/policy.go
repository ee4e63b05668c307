// Package policy decides whether a command may run (SPEC §6.9, seed 002:
// "run_shell/exec run argv, NOT a shell", "Argument rules", "Shell mode",
// "Refusal reasons"). It parses, it never runs anything, and it never
// prints. engine/command asks it before every run and start; `aw policy
// check-command` shows its verdict as it is.
package policy

// Request is what to check: an argv (never through a shell), or a line
// (tokenized in interpreter "none", parsed with mvdan.cc/sh in "sh").
type Request struct {
	Argv []string // set for argv mode
	Line string   // set for a command line
	Cwd  string   // root-relative directory the command starts in ("" = the root or scope)
}

// Refusal reasons (seed 002 "Refusal reasons").
const (
	Metacharacter     = "metacharacter"
	UnbalancedQuotes  = "unbalanced-quotes"
	DeniedExecutable  = "denied-executable"
	NotAllowed        = "not-allowed"
	DeniedPattern     = "denied-pattern"
	NestedCommand     = "nested-command"
	UnsupportedSyntax = "unsupported-syntax"
	PathEscape        = "path-escape"
)

// Verdict is the answer, in the shape of SPEC §6.0 policy.check-command.
type Verdict struct {
	Allowed    bool       `json:"allowed"`
	Reason     string     `json:"reason,omitempty"`     // one of the refusal reasons
	Message    string     `json:"message,omitempty"`    // what happened and how to repair it
	Executable string     `json:"executable,omitempty"` // the refused executable, or the first one run
	Path       string     `json:"path,omitempty"`       // the refused path (path-escape)
	Commands   [][]string `json:"commands"`             // every simple command found, as argv after quote removal
	Paths      []string   `json:"paths"`                // redirection targets and cd directories, root-relative
	// Argv is what to run in interpreter "none" (the tokenized line or the
	// argv as given); a line allowed in interpreter "sh" runs through
	// /bin/sh -c Line.
	Argv []string `json:"argv,omitempty"`
	// Shell is true when the line must run through /bin/sh.
	Shell bool `json:"shell,omitempty"`
}

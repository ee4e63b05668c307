package policy

import (
	"errors"

	"github.com/agentic-workspace/aw/engine/policy/rule"
)

// argvLine checks a line in interpreter "none": it is split into words with
// quotes respected and run without a shell, so any unquoted operator is
// refused with advice on how to do the same thing without one.
func (c *checker) argvLine(line string) {
	toks, err := rule.Scan(line)
	var qe *rule.QuoteError
	if errors.As(err, &qe) {
		c.refuse(UnbalancedQuotes, "", "", "%s; close it (quotes group words in argv mode, nothing is expanded inside them)", qe.Error())
		return
	}
	// Segments between operators, for the advice.
	var segs [][]string
	var ops []string
	cur := []string{}
	for _, t := range toks {
		if t.Op == "" {
			cur = append(cur, t.Text)
			continue
		}
		segs = append(segs, cur)
		ops = append(ops, t.Op)
		cur = []string{}
	}
	segs = append(segs, cur)
	if len(ops) > 0 {
		c.refuse(Metacharacter, "", "", "%s", advice(ops, segs))
		// The commands the line meant, as far as plain words show them
		// (not the file names after a redirection).
		for i, s := range segs {
			if len(s) > 0 && (i == 0 || !redirection[ops[i-1]]) {
				c.v.Commands = append(c.v.Commands, s)
			}
		}
		return
	}
	if len(cur) == 0 {
		c.refuse(NotAllowed, "", "", "the command is empty; pass an executable and its arguments")
		return
	}
	c.v.Argv = cur
	c.command(literal(cur), 0)
}

var redirection = map[string]bool{">": true, ">>": true, "<": true, "<<": true, ">&": true, "<&": true, "&>": true}

const argvNote = " (aw command runs one argv without a shell; a human can opt in to shell lines with `aw config set commands.interpreter sh`)"

// advice explains the first operator of a line and how to do without it.
func advice(ops []string, segs [][]string) string {
	op := ops[0]
	first, rest := shellJoin(segs[0]), ""
	if len(segs) > 1 {
		rest = shellJoin(segs[1])
	}
	quoted := "`" + op + "`"
	if op == "newline" {
		quoted = "a newline"
	}
	switch op {
	case "&&", "||", ";", "newline", ";;":
		if len(segs[0]) > 0 && segs[0][0] == "cd" && len(segs[0]) == 2 && rest != "" {
			return "a leading `cd` is not needed in argv mode: paths are relative to the workspace root; run `" + rest + "` with --cwd " + shellQuote(segs[0][1]) + " (or with paths relative to the root)" + argvNote
		}
		if first == "" || rest == "" {
			return quoted + " is not supported in argv mode: run each command on its own" + argvNote
		}
		return quoted + " is not supported in argv mode: run `" + first + "`, then `" + rest + "`, as separate commands" + argvNote
	case "|", "||&", "|&":
		return "a pipe (" + quoted + ") is not supported in argv mode: run `" + first + "` alone and read its output yourself instead of piping it into `" + rest + "`" + argvNote
	case ">", ">>", "<", "<<", ">&", "<&", "&>":
		return "a redirection (" + quoted + ") is not supported in argv mode: run `" + first + "` and read its output from the result; write files with `aw edit` and read them with `aw inspect read`" + argvNote
	case "$", "$(", "${", "`", "$'":
		return "a variable or substitution (" + quoted + ") is not expanded in argv mode: pass the value literally (quote it if it holds spaces), or run the inner command first and use its output" + argvNote
	case "&":
		return "background `&` is not supported: start long-running commands with `aw command start -- " + first + "` and run the rest separately" + argvNote
	}
	return "the shell operator " + quoted + " is not supported in argv mode: run the commands separately, without grouping" + argvNote
}

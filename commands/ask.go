package commands

import (
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/agentic-workspace/aw/engine/ask"
	"github.com/agentic-workspace/aw/engine/dispatch"
)

func (a *app) askCmd() *cobra.Command {
	var options []string
	c := a.verb(dispatch.Ask, "ask", "ask QUESTION... [--context C] [--option LABEL[:DESCRIPTION]]... [--free-text] [--multi] [--wait S]", func(f *pflag.FlagSet, req any) {
		r := req.(*ask.AskRequest)
		f.StringVar(&r.Context, "context", "", "why you ask and what hangs on the answer")
		f.StringArrayVar(&options, "option", nil, "a choice, LABEL or LABEL:DESCRIPTION (repeat for more)")
		f.BoolVar(&r.AllowFreeText, "free-text", false, "accept a typed answer as well as the options")
		f.BoolVar(&r.MultiSelect, "multi", false, "several options may be chosen")
		f.Var(optionalFloat{&r.WaitSeconds}, "wait", "seconds to wait for the answer, 1-3600 (default 300); none by then is a TIMEOUT error")
	}, func(req any, args []string) {
		r := req.(*ask.AskRequest)
		if len(args) > 0 {
			r.Question = strings.Join(args, " ")
		}
		for _, o := range options {
			label, desc, _ := strings.Cut(o, ":")
			r.Options = append(r.Options, ask.Option{Label: label, Description: strings.TrimSpace(desc)})
		}
	})
	c.Long = `Ask the human a question and wait for the answer: a question_ record is
created under .agentic/questions/ and the call blocks until the human
answers it (` + "`aw answer ID CHOICE...`" + `), skips it (` + "`aw answer ID --skip`" + `), or
the wait runs out. On a terminal the question is also asked right there:
type an option's number or label (several separated by commas), your own
words where the question takes them, or --skip. A harness piping the
user's messages through ` + "`aw prompt`" + ` answers with /answer.

A skip is success: proceed on a stated assumption, say which, and do not
ask again. A wait that runs out is a TIMEOUT error with the same
instruction. When no human can answer (no terminal, and no approver token
set up with ` + "`aw approval token`" + `) the call fails at once with
HUMAN_REQUIRED instead of blocking.`
	return c
}

func (a *app) answerCmd() *cobra.Command {
	c := a.verb(dispatch.Ask, "answer", "answer [ID] [CHOICE...|TEXT] [--text T] [--skip]", func(f *pflag.FlagSet, req any) {
		r := req.(*ask.AnswerRequest)
		f.StringVar(&r.Text, "text", "", "a typed answer (when the question allows one)")
		f.BoolVar(&r.Skip, "skip", false, "skip the question: the asker proceeds on a stated assumption")
	}, func(req any, args []string) {
		r := req.(*ask.AnswerRequest)
		if len(args) > 0 {
			r.QuestionID = args[0]
			r.Choices = append(r.Choices, args[1:]...)
		}
	})
	c.Long = `Answer a question an agent asked with ` + "`aw ask`" + ` (a human verb: your own
terminal, or AW_APPROVER_TOKEN matching your token file). Choose options by
label or by number (1-based), type an answer when the question allows
free text, or --skip it. With no id, list the pending questions.`
	return c
}

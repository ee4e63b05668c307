// Package ask lets an agent (or a sub-agent's run) ask the human a
// question and wait for the answer: `aw ask` creates a question_ record
// under .agentic/questions/ and blocks until the human answers it with
// `aw answer` (a human verb, like approval accept), skips it, or the wait
// runs out.
//
// Design decisions:
//
//   - No human channel, no question: when nobody could answer (no
//     terminal, no approver token set up for a harness the human owns) ask
//     fails at once with HUMAN_REQUIRED instead of blocking until its wait
//     runs out.
//   - A skip is success: the asker proceeds on a stated assumption and
//     does not ask again. A wait that runs out is a TIMEOUT error carrying
//     the same instruction; the record says timed_out and can no longer be
//     answered, so a late answer is never mistaken for one the asker read.
//   - Answers name options by label or by number (1-based); free text is
//     accepted only when the question allows it, several options only
//     with multi_select.
package ask

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/gate"
	"github.com/agentic-workspace/aw/engine/store"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// Statuses of a question.
const (
	Pending  = "pending"
	Answered = "answered"
	Skipped  = "skipped"
	TimedOut = "timed_out"
)

// Bounds.
const (
	DefaultWaitSeconds = 300
	MaxWaitSeconds     = 3600
	maxQuestion        = 2000
	maxContext         = 8000
	maxOptions         = 20
	maxLabel           = 100
	maxDescription     = 500
	maxAnswer          = 8000
	pollEvery          = 100 * time.Millisecond
)

// Option is one choice offered.
type Option struct {
	Label       string `json:"label" doc:"the choice, in a few words"`
	Description string `json:"description,omitempty" doc:"what choosing it means"`
}

// AskRequest is ask.
type AskRequest struct {
	Question      string   `json:"question" doc:"what to ask the human (at most 2,000 characters)"`
	Context       string   `json:"context,omitempty" doc:"why you ask and what hangs on the answer (at most 8,000 characters)"`
	Options       []Option `json:"options,omitempty" doc:"choices, each {label, description}; at most 20"`
	AllowFreeText bool     `json:"allow_free_text,omitempty" doc:"accept a typed answer (without options it is always accepted)"`
	MultiSelect   bool     `json:"multi_select,omitempty" doc:"several options may be chosen"`
	WaitSeconds   *float64 `json:"wait_seconds,omitempty" doc:"seconds to wait for the answer, 1-3600 (default 300); no answer by then is a TIMEOUT error"`
}

// AnswerRequest is answer (a human verb).
type AnswerRequest struct {
	QuestionID string   `json:"question_id" doc:"the question_ id"`
	Choices    []string `json:"choices,omitempty" doc:"the options chosen, by label or number (1-based); or the answer's words when free text is allowed"`
	Text       string   `json:"text,omitempty" doc:"a typed answer (when the question allows free text)"`
	Skip       bool     `json:"skip,omitempty" doc:"skip the question: the asker proceeds on a stated assumption"`
}

// Question is .agentic/questions/<question_id>.json.
type Question struct {
	ID            string    `json:"id"`
	Status        string    `json:"status"`
	Question      string    `json:"question"`
	Context       string    `json:"context,omitempty"`
	Options       []Option  `json:"options"`
	AllowFreeText bool      `json:"allowFreeText"`
	MultiSelect   bool      `json:"multiSelect"`
	CreatedAt     time.Time `json:"createdAt"`
	Deadline      time.Time `json:"deadline"`
	Choices       []string  `json:"choices,omitempty"`
	Text          string    `json:"text,omitempty"`
	AnsweredAt    time.Time `json:"answeredAt,omitzero"`
}

func path(ws *workspace.Workspace, id string) string {
	return ws.Store.Path("questions", id+".json")
}

// Channel reports whether a human could answer a question asked from ws:
// a terminal, an MCP client that asks the human (a channel record), or an
// approver token set up for a harness the human owns (answers then come
// through `aw answer` or /answer with it). why says what is missing.
func Channel(ws *workspace.Workspace) (ok bool, why string) {
	if ws.Caller.Terminal || liveChannel(ws) {
		return true, ""
	}
	p := gate.TokenPath(ws)
	if p == "" {
		return false, "no terminal, and no config directory for an approver token"
	}
	if _, err := os.Stat(p); err != nil {
		return false, "no terminal, and no approver token is set up (`aw approval token` in the human's terminal)"
	}
	if ok, why := ws.TrustedUserFile(p); !ok {
		return false, "no terminal, and the approver token file is ignored because " + why
	}
	return true, ""
}

// Ask is ask: validate, check that a human can answer, record the
// question, and wait for the answer.
func Ask(ctx context.Context, ws *workspace.Workspace, req *AskRequest) (envelope.Envelope, error) {
	bad := func(format string, args ...any) (envelope.Envelope, error) {
		return envelope.Envelope{}, envelope.Errorf(envelope.InvalidInput, format, args...)
	}
	switch n := utf8.RuneCountInString(req.Question); {
	case strings.TrimSpace(req.Question) == "":
		return bad("question is required: say what you need the human to decide, e.g. `aw ask 'Keep the old API?' --option yes --option no`")
	case n > maxQuestion:
		return bad("question is %d characters, more than %d: put the detail in context", n, maxQuestion)
	case utf8.RuneCountInString(req.Context) > maxContext:
		return bad("context is more than %d characters: name the files the human should read instead", maxContext)
	case len(req.Options) > maxOptions:
		return bad("%d options, more than %d", len(req.Options), maxOptions)
	case req.MultiSelect && len(req.Options) == 0:
		return bad("multi_select needs options to choose from")
	}
	seen := map[string]bool{}
	for i, o := range req.Options {
		l := strings.TrimSpace(o.Label)
		switch {
		case l == "":
			return bad("option %d has no label", i+1)
		case utf8.RuneCountInString(l) > maxLabel || utf8.RuneCountInString(o.Description) > maxDescription:
			return bad("option %d is too long: labels up to %d characters, descriptions up to %d", i+1, maxLabel, maxDescription)
		case seen[strings.ToLower(l)]:
			return bad("option %q is given twice", l)
		case isNumber(l):
			return bad("option label %q is a number: answers name options by number, so labels must be words", l)
		}
		seen[strings.ToLower(l)] = true
		req.Options[i].Label = l
	}
	wait := float64(DefaultWaitSeconds)
	if req.WaitSeconds != nil {
		wait = *req.WaitSeconds
		if math.IsNaN(wait) || wait < 1 || wait > MaxWaitSeconds {
			return bad("wait_seconds %v is out of range: 1 to %d (default %d)", wait, MaxWaitSeconds, DefaultWaitSeconds)
		}
	}
	if ok, why := Channel(ws); !ok {
		return envelope.Envelope{}, envelope.Errorf(envelope.HumanRequired, "no human can answer this question (%s), so it was not asked: decide on a stated assumption, say which, and go on", why).With("reason", "no-human-channel")
	}
	now := time.Now().UTC()
	q := &Question{
		ID: store.NewID("question"), Status: Pending, Question: req.Question, Context: req.Context, Options: req.Options,
		AllowFreeText: req.AllowFreeText || len(req.Options) == 0, MultiSelect: req.MultiSelect,
		CreatedAt: now, Deadline: now.Add(time.Duration(wait * float64(time.Second))),
	}
	if q.Options == nil {
		q.Options = []Option{}
	}
	if err := os.MkdirAll(ws.Store.Path("questions"), 0o755); err != nil {
		return envelope.Envelope{}, envelope.Errorf(envelope.Internal, "cannot create .agentic/questions: %v", err)
	}
	if err := ws.Store.WriteJSON(path(ws, q.ID), q); err != nil {
		return envelope.Envelope{}, err
	}
	if ws.Caller.Terminal && ws.Caller.ReadLine != nil {
		// The human is at this terminal: ask there. An answer from
		// elsewhere (aw answer, /answer) ends the wait just the same.
		go promptTerminal(ws, q)
	}
	for {
		cur, err := load(ws, q.ID)
		if err != nil {
			return envelope.Envelope{}, err
		}
		if cur.Status != Pending {
			return answered(cur), nil
		}
		if time.Now().After(q.Deadline) || ctx.Err() != nil {
			var out Question
			err := store.Update(ws.Store, path(ws, q.ID), func(c *Question) error {
				if c.Status == Pending {
					c.Status = TimedOut
				}
				out = *c
				return nil
			})
			if err != nil {
				return envelope.Envelope{}, err
			}
			if out.Status != TimedOut {
				return answered(&out), nil // answered at the last moment
			}
			return envelope.Envelope{}, envelope.Errorf(envelope.Timeout, "question %s got no answer within %gs: proceed on a stated assumption, say which, and do not ask again", q.ID, wait).With("questionId", q.ID)
		}
		time.Sleep(pollEvery)
	}
}

func isNumber(s string) bool {
	_, err := strconv.Atoi(s)
	return err == nil
}

func load(ws *workspace.Workspace, id string) (*Question, error) {
	if !store.ValidID(id, "question") {
		return nil, envelope.Errorf(envelope.InvalidInput, "%q is not a question id: they look like question_01h...; `aw answer` with no id lists the pending ones", id).With("questionId", id)
	}
	var q Question
	found, err := ws.Store.ReadJSON(path(ws, id), &q)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, envelope.Errorf(envelope.NotFound, "no question %s in this workspace", id).With("questionId", id)
	}
	return &q, nil
}

// answered is the asker's envelope once the human decided.
func answered(q *Question) envelope.Envelope {
	var summary string
	switch q.Status {
	case Skipped:
		summary = fmt.Sprintf("The human skipped question %s: proceed on a stated assumption, say which, and do not ask again.", q.ID)
	case TimedOut:
		summary = fmt.Sprintf("Question %s timed out: proceed on a stated assumption, say which, and do not ask again.", q.ID)
	default:
		var parts []string
		if len(q.Choices) > 0 {
			parts = append(parts, "chose "+strings.Join(quoteAll(q.Choices), ", "))
		}
		if q.Text != "" {
			parts = append(parts, fmt.Sprintf("answered %q", envelope.Clip(q.Text, 2000)))
		}
		summary = fmt.Sprintf("The human %s (question %s).", strings.Join(parts, " and "), q.ID)
	}
	env := envelope.New("", summary, q)
	env.Retention.Importance = envelope.High
	env.Fact("question %s %s: %s", q.ID, q.Status, envelope.Clip(q.Question, 200))
	if len(q.Choices) > 0 {
		env.Fact("answer to %s: %s", q.ID, strings.Join(q.Choices, ", "))
	}
	return env
}

func quoteAll(list []string) []string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = strconv.Quote(s)
	}
	return out
}

// Answer is answer, a human verb: choose options (by label or number),
// type an answer, or skip.
func Answer(ctx context.Context, ws *workspace.Workspace, req *AnswerRequest) (envelope.Envelope, error) {
	if err := gate.RequireHuman(ws, "`aw answer`"); err != nil {
		return envelope.Envelope{}, err
	}
	if req.QuestionID == "" {
		return List(ctx, ws)
	}
	q, err := load(ws, req.QuestionID)
	if err != nil {
		return envelope.Envelope{}, err
	}
	if req.Skip && (len(req.Choices) > 0 || req.Text != "") {
		return envelope.Envelope{}, envelope.Errorf(envelope.InvalidInput, "skip takes no answer: give --skip alone, or the answer without it")
	}
	var choices []string
	text := req.Text
	if !req.Skip {
		choices, text, err = q.read(req.Choices, text)
		if err != nil {
			return envelope.Envelope{}, err
		}
	}
	out, err := record(ws, q.ID, choices, text, req.Skip)
	if err != nil {
		return envelope.Envelope{}, err
	}
	env := envelope.New("", fmt.Sprintf("Question %s %s; the asker reads it within a moment.", out.ID, out.Status), out)
	env.Fact("question %s %s", out.ID, out.Status)
	return env, nil
}

// record saves the human's answer (or skip) to a pending question.
func record(ws *workspace.Workspace, id string, choices []string, text string, skip bool) (*Question, error) {
	var out Question
	err := store.Update(ws.Store, path(ws, id), func(c *Question) error {
		if c.Status != Pending {
			return envelope.Errorf(envelope.TransactionState, "question %s is already %s: it can no longer be answered", c.ID, c.Status).With("questionId", c.ID).With("status", c.Status)
		}
		c.Status, c.Choices, c.Text, c.AnsweredAt = Answered, choices, text, time.Now().UTC()
		if skip {
			c.Status, c.Choices, c.Text = Skipped, nil, ""
		}
		out = *c
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// SkipWord, typed alone, skips a question at the terminal or in
// `/answer`.
const SkipWord = "--skip"

// AnswerLine records one typed line as the answer to a question: what a
// human types at the terminal aw ask runs on, or after /answer in aw
// prompt (the caller has checked that a human typed it).
func AnswerLine(ws *workspace.Workspace, id, line string) (*Question, error) {
	q, err := load(ws, id)
	if err != nil {
		return nil, err
	}
	line = strings.TrimSpace(line)
	if line == SkipWord {
		return record(ws, q.ID, nil, "", true)
	}
	choices, text, err := q.readLine(line)
	if err != nil {
		return nil, err
	}
	return record(ws, q.ID, choices, text, false)
}

// Reply records the human's answer given through a form (an MCP client's
// elicitation): the options chosen by label and the text typed, checked by
// the question's rules, or a skip. The caller vouches that a human gave it.
func Reply(ws *workspace.Workspace, id string, choices []string, text string, skip bool) (*Question, error) {
	q, err := load(ws, id)
	if err != nil {
		return nil, err
	}
	if !skip {
		if choices, text, err = q.read(choices, text); err != nil {
			return nil, err
		}
	}
	return record(ws, q.ID, choices, text, skip)
}

// readLine reads a typed line by the question's rules: the whole line
// naming one option, options listed with commas or spaces, else free text
// where the question allows it.
func (q *Question) readLine(line string) ([]string, string, error) {
	if o, ok := q.option(line); ok {
		return []string{o}, "", nil
	}
	commas := strings.Split(line, ",")
	for _, parts := range [][]string{commas, strings.Fields(line)} {
		if len(parts) > 1 && q.allOptions(parts) {
			return q.read(parts, "")
		}
	}
	if q.AllowFreeText {
		return q.read(nil, line)
	}
	return q.read(commas, "")
}

func (q *Question) allOptions(words []string) bool {
	for _, w := range words {
		if _, ok := q.option(w); !ok {
			return false
		}
	}
	return true
}

// promptTerminal asks q at the human's terminal until a line answers it
// (a line that does not is explained and asked again) or the question is
// no longer pending.
func promptTerminal(ws *workspace.Workspace, q *Question) {
	text := card(q)
	for {
		line, err := ws.Caller.ReadLine(text)
		if err != nil {
			return
		}
		_, err = AnswerLine(ws, q.ID, line)
		if err == nil || envelope.CodeOf(err) == envelope.TransactionState {
			return
		}
		var e *envelope.Error
		if !errors.As(err, &e) {
			return
		}
		text = e.Message + "\n> "
	}
}

// card is the question as the terminal shows it.
func card(q *Question) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\nThe agent asks (%s):\n  %s\n", q.ID, q.Question)
	if q.Context != "" {
		fmt.Fprintf(&b, "\n  %s\n", strings.ReplaceAll(q.Context, "\n", "\n  "))
	}
	if len(q.Options) > 0 {
		b.WriteString("\n")
		for i, o := range q.Options {
			fmt.Fprintf(&b, "  %d. %s", i+1, o.Label)
			if o.Description != "" {
				fmt.Fprintf(&b, " — %s", o.Description)
			}
			b.WriteString("\n")
		}
	}
	b.WriteString("\n")
	switch {
	case len(q.Options) == 0:
		b.WriteString("Type your answer")
	case q.MultiSelect:
		b.WriteString("Type the numbers or labels of your choices, separated by commas")
	default:
		b.WriteString("Type a number or label")
	}
	if q.AllowFreeText && len(q.Options) > 0 {
		b.WriteString(", or an answer of your own")
	}
	fmt.Fprintf(&b, "; %s skips it. (Or answer from another terminal with `aw answer %s ...`.)\n> ", SkipWord, q.ID)
	return b.String()
}

// Open lists the questions still waiting for an answer, oldest first.
func Open(ws *workspace.Workspace) []Question {
	out := []Question{}
	ents, _ := os.ReadDir(ws.Store.Path("questions"))
	for _, e := range ents {
		id := strings.TrimSuffix(e.Name(), ".json")
		if !store.ValidID(id, "question") {
			continue
		}
		if q, err := load(ws, id); err == nil && q.Status == Pending && time.Now().Before(q.Deadline) {
			out = append(out, *q)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// read turns the human's words into choices and text by the question's
// rules.
func (q *Question) read(words []string, text string) ([]string, string, error) {
	var choices []string
	var loose []string
	for _, w := range words {
		if o, ok := q.option(w); ok {
			if !contains(choices, o) {
				choices = append(choices, o)
			}
		} else {
			loose = append(loose, w)
		}
	}
	if len(loose) > 0 {
		if !q.AllowFreeText || len(choices) > 0 {
			return nil, "", envelope.Errorf(envelope.InvalidInput, "%q is not one of the options (%s); answer with a label or its number", strings.Join(loose, " "), q.labels())
		}
		text = strings.TrimSpace(strings.Join(loose, " ") + " " + text)
	}
	switch {
	case len(choices) == 0 && strings.TrimSpace(text) == "":
		return nil, "", envelope.Errorf(envelope.InvalidInput, "no answer given: choose from %s, or give --skip", q.labels())
	case text != "" && !q.AllowFreeText:
		return nil, "", envelope.Errorf(envelope.InvalidInput, "this question takes no typed answer: choose from %s", q.labels())
	case len(choices) > 1 && !q.MultiSelect:
		return nil, "", envelope.Errorf(envelope.InvalidInput, "this question takes one option, %d were chosen", len(choices))
	case utf8.RuneCountInString(text) > maxAnswer:
		return nil, "", envelope.Errorf(envelope.InvalidInput, "the answer is more than %d characters", maxAnswer)
	}
	return choices, text, nil
}

func (q *Question) option(w string) (string, bool) {
	w = strings.TrimSpace(w)
	if n, err := strconv.Atoi(w); err == nil && n >= 1 && n <= len(q.Options) {
		return q.Options[n-1].Label, true
	}
	for _, o := range q.Options {
		if strings.EqualFold(o.Label, w) {
			return o.Label, true
		}
	}
	return "", false
}

func (q *Question) labels() string {
	if len(q.Options) == 0 {
		return "free text"
	}
	var l []string
	for i, o := range q.Options {
		l = append(l, fmt.Sprintf("%d %s", i+1, o.Label))
	}
	return strings.Join(l, ", ")
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// ListData is the pending questions.
type ListData struct {
	Questions []Question `json:"questions"`
}

// List shows the pending questions, oldest first (what answer without an
// id shows the human).
func List(ctx context.Context, ws *workspace.Workspace) (envelope.Envelope, error) {
	d := &ListData{Questions: Open(ws)}
	env := envelope.New("", fmt.Sprintf("%d pending question(s); answer one with `aw answer ID CHOICE...` or `aw answer ID --skip`.", len(d.Questions)), d)
	for _, q := range d.Questions {
		env.Fact("question %s pending: %s", q.ID, envelope.Clip(q.Question, 200))
	}
	return env, nil
}

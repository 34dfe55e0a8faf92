package main

// The live-client form (kipcheck's client-cmd: target, docs/live-clients.md):
// `client -config FILE [-profile FILE] [-bootstrap HOST:PORT]`. The properties file's kipcheck.*
// keys are kipcheck's; the rest are Java client property names, mapped below to franz-go
// options (a key without a franz-go counterpart is skipped with a note on stderr). The program
// builds one kgo client (franz-go has one client type; a consumer with group.id joins a group on
// the interop topic), pings the cluster (its first connection: ApiVersions, Metadata), answers
// each `user_request <id>` line on stdin with `released <id>` once the ping returned (franz-go
// does not implement KIP-1324: there is no handshake to wait for), and exits 0 when stdin closes.
// Share consumer and Streams: exit 3 (franz-go has neither). The profile is not used.

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// readProperties parses a java.util.Properties file (comments, `=`/`:`/space separators,
// backslash continuations and escapes, \uXXXX).
func readProperties(path string) (map[string]string, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	props := map[string]string{}
	var logical []string
	buf := ""
	for _, line := range strings.Split(strings.ReplaceAll(string(raw), "\r\n", "\n"), "\n") {
		line = strings.TrimLeft(line, " \t\f")
		if buf == "" && (line == "" || line[0] == '#' || line[0] == '!') {
			continue
		}
		n := len(line) - len(strings.TrimRight(line, "\\"))
		if n%2 == 1 {
			buf += line[:len(line)-1]
			continue
		}
		logical = append(logical, buf+line)
		buf = ""
	}
	if buf != "" {
		logical = append(logical, buf)
	}
	for _, l := range logical {
		i := 0
		for i < len(l) && !strings.ContainsRune("=: \t\f", rune(l[i])) {
			if l[i] == '\\' {
				i++
			}
			i++
		}
		if i > len(l) {
			i = len(l)
		}
		key, rest := l[:i], strings.TrimLeft(l[i:], " \t\f")
		if strings.HasPrefix(rest, "=") || strings.HasPrefix(rest, ":") {
			rest = strings.TrimLeft(rest[1:], " \t\f")
		}
		props[unescape(key)] = unescape(rest)
	}
	return props, nil
}

var uEscape = regexp.MustCompile(`\\u[0-9a-fA-F]{4}`)

func unescape(s string) string {
	s = uEscape.ReplaceAllStringFunc(s, func(m string) string {
		r, _ := strconv.ParseUint(m[2:], 16, 32)
		return string(rune(r))
	})
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
			switch s[i] {
			case 't':
				b.WriteByte('\t')
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 'f':
				b.WriteByte('\f')
			default:
				b.WriteByte(s[i])
			}
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func ms(v string) (time.Duration, error) {
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	return time.Duration(n) * time.Millisecond, err
}

// options maps Java property names to franz-go options; notes lists what was skipped.
func options(props map[string]string) ([]kgo.Opt, []string) {
	var opts []kgo.Opt
	var notes []string
	backoff, backoffMax := 100*time.Millisecond, time.Second
	keys := make([]string, 0, len(props))
	for k := range props {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := strings.TrimSpace(props[k])
		var err error
		var d time.Duration
		switch k {
		case "bootstrap.servers":
			var seeds []string
			for _, s := range strings.Split(v, ",") {
				if s = strings.TrimSpace(s); s != "" {
					seeds = append(seeds, s)
				}
			}
			opts = append(opts, kgo.SeedBrokers(seeds...))
		case "client.id":
			opts = append(opts, kgo.ClientID(v))
		case "client.rack":
			opts = append(opts, kgo.Rack(v))
		case "group.id":
			opts = append(opts, kgo.ConsumerGroup(v), kgo.ConsumeTopics(defaultTopic))
		case "retry.backoff.ms":
			backoff, err = ms(v)
		case "retry.backoff.max.ms":
			backoffMax, err = ms(v)
		case "socket.connection.setup.timeout.ms":
			if d, err = ms(v); err == nil {
				opts = append(opts, kgo.DialTimeout(d))
			}
		case "metadata.max.age.ms":
			if d, err = ms(v); err == nil {
				opts = append(opts, kgo.MetadataMaxAge(d))
			}
		case "session.timeout.ms":
			if d, err = ms(v); err == nil {
				opts = append(opts, kgo.SessionTimeout(d))
			}
		case "heartbeat.interval.ms":
			if d, err = ms(v); err == nil {
				opts = append(opts, kgo.HeartbeatInterval(d))
			}
		case "fetch.max.wait.ms":
			if d, err = ms(v); err == nil {
				opts = append(opts, kgo.FetchMaxWait(d))
			}
		case "linger.ms":
			if d, err = ms(v); err == nil {
				opts = append(opts, kgo.ProducerLinger(d))
			}
		case "auto.commit.interval.ms":
			if d, err = ms(v); err == nil {
				opts = append(opts, kgo.AutoCommitInterval(d))
			}
		case "enable.auto.commit":
			if strings.EqualFold(v, "false") {
				opts = append(opts, kgo.DisableAutoCommit())
			}
		case "enable.idempotence":
			if strings.EqualFold(v, "false") {
				opts = append(opts, kgo.DisableIdempotentWrite())
			}
		case "acks":
			switch v {
			case "all", "-1":
				opts = append(opts, kgo.RequiredAcks(kgo.AllISRAcks()))
			case "1":
				opts = append(opts, kgo.RequiredAcks(kgo.LeaderAck()), kgo.DisableIdempotentWrite())
			case "0":
				opts = append(opts, kgo.RequiredAcks(kgo.NoAck()), kgo.DisableIdempotentWrite())
			default:
				err = fmt.Errorf("acks %q", v)
			}
		case "transactional.id":
			opts = append(opts, kgo.TransactionalID(v))
		default:
			notes = append(notes, k+": no franz-go counterpart, skipped")
		}
		if err != nil {
			notes = append(notes, fmt.Sprintf("%s=%q: not a valid value (%v), skipped", k, props[k], err))
		}
	}
	opts = append(opts, kgo.RetryBackoffFn(func(tries int) time.Duration {
		d := backoff << uint(min(tries-1, 30))
		if d > backoffMax || d <= 0 {
			d = backoffMax
		}
		return d
	}))
	return opts, notes
}

// live runs the live form; returns the exit status.
func live(config, bootstrap string) int {
	file, err := readProperties(config)
	if err != nil {
		fmt.Fprintln(os.Stderr, "franz-go: config:", err)
		return 2
	}
	props := map[string]string{}
	for k, v := range file {
		if !strings.HasPrefix(k, "kipcheck.") {
			props[k] = v
		}
	}
	if strings.TrimSpace(props["bootstrap.servers"]) == "" && bootstrap != "" {
		props["bootstrap.servers"] = bootstrap
	}
	ctype := file["kipcheck.client.type"]
	if file["kipcheck.client.embedded"] == "true" || ctype == "share_consumer" || ctype == "streams" {
		fmt.Fprintf(os.Stderr, "franz-go: franz-go has no %s client\n", ctype)
		return 3
	}
	opts, notes := options(props)
	for _, n := range notes {
		fmt.Fprintln(os.Stderr, "franz-go:", n)
	}
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		fmt.Fprintln(os.Stderr, "franz-go: client:", err)
		return 1
	}
	ready := make(chan struct{})
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := cl.Ping(ctx); err != nil {
			fmt.Fprintln(os.Stderr, "franz-go: first request:", err)
		}
		close(ready)
	}()
	var out sync.Mutex
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 2 && f[0] == "user_request" {
			if _, err := strconv.ParseUint(f[1], 10, 64); err == nil {
				id := f[1]
				go func() {
					<-ready
					out.Lock()
					fmt.Printf("released %s\n", id)
					out.Unlock()
				}()
				continue
			}
		}
		if len(f) > 0 {
			fmt.Fprintln(os.Stderr, "franz-go: ignored stdin line", sc.Text())
		}
	}
	done := make(chan struct{})
	go func() { cl.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(1500 * time.Millisecond):
	}
	return 0
}

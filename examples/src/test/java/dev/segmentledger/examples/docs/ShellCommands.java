package dev.segmentledger.examples.docs;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The simple commands of a shell snippet as the documentation writes them, split into words the
 * way a POSIX shell would: continuation lines ({@code \} at the end) joined, comments ({@code #}
 * starting a word) dropped, a {@code $ } prompt removed, {@code &&}, {@code ||}, {@code ;} and
 * {@code |} separating commands, quotes and backslashes removed from the words, leading variable
 * assignments ({@code NAME=value}) and the wrappers {@code nice}, {@code ionice}, {@code time}
 * dropped. A command substitution {@code $(...)} becomes the word part {@code $SUB}. A {@code cd}
 * changes the directory of the commands after it (inside parentheses, only up to the closing one).
 * No expansion of any kind: a word holding {@code $} or {@code <} is a placeholder for the checks.
 *
 * <p>Stateless; thread-safe.
 */
final class ShellCommands {

  /**
   * One simple command: its words, the joined line as written (for messages), the line it starts
   * on, and the directory it runs in relative to the repository root ({@code ""} for the root).
   */
  record Command(List<String> words, String text, int line, String directory) {}

  private static final Pattern SUBSTITUTION = Pattern.compile("\\$\\([^()]*\\)");
  private static final Pattern ASSIGNMENT = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*=.*");
  private static final Set<String> OPERATORS = Set.of("&&", "||", ";", "|", "(", ")");

  private ShellCommands() {}

  /** The commands of a snippet whose first line is line {@code firstLine} of its file. */
  static List<Command> parse(String snippet, int firstLine) {
    List<Command> commands = new ArrayList<>();
    String[] lines = snippet.split("\n", -1);
    String directory = "";
    for (int i = 0; i < lines.length; i++) {
      int start = i;
      StringBuilder logical = new StringBuilder(lines[i].stripTrailing());
      while (endsWithContinuation(logical) && i + 1 < lines.length) {
        logical.setLength(logical.length() - 1);
        logical.append(' ').append(lines[++i].strip());
      }
      String text = logical.toString().strip();
      if (text.startsWith("$ ")) {
        text = text.substring(2);
      }
      if (text.isEmpty() || text.startsWith("#")) {
        continue;
      }
      directory = commandsOf(text, firstLine + start, directory, commands);
    }
    return commands;
  }

  /** Adds the line's commands; returns the directory after the line. */
  private static String commandsOf(String text, int line, String directory, List<Command> commands) {
    List<String> tokens = tokens(SUBSTITUTION.matcher(text).replaceAll("\\$SUB"));
    Deque<String> directories = new ArrayDeque<>();
    String current = directory;
    List<String> words = new ArrayList<>();
    for (String token : tokens) {
      if (OPERATORS.contains(token)) {
        current = command(words, text, line, current, commands);
        words = new ArrayList<>();
        if (token.equals("(")) {
          directories.push(current);
        } else if (token.equals(")") && !directories.isEmpty()) {
          current = directories.pop();
        }
      } else {
        words.add(token);
      }
    }
    current = command(words, text, line, current, commands);
    return directories.isEmpty() ? current : directories.getLast();
  }

  /** Adds the command of {@code words} unless it is a {@code cd}; returns the directory after it. */
  private static String command(List<String> words, String text, int line, String directory,
      List<Command> commands) {
    int first = 0;
    while (first < words.size()) {
      String word = words.get(first);
      if (ASSIGNMENT.matcher(word).matches() || word.equals("time")) {
        first++;
      } else if (word.equals("nice") || word.equals("ionice")) {
        first++;
        while (first < words.size() && words.get(first).startsWith("-")) {
          boolean separateValue = words.get(first).equals("-n") || words.get(first).equals("-c");
          first += separateValue ? 2 : 1;
        }
      } else {
        break;
      }
    }
    List<String> command = words.subList(Math.min(first, words.size()), words.size());
    if (command.isEmpty()) {
      return directory;
    }
    if (command.get(0).equals("cd")) {
      return command.size() > 1 ? resolve(directory, command.get(1)) : "";
    }
    commands.add(new Command(List.copyOf(command), text, line, directory));
    return directory;
  }

  /** {@code path} relative to the repository root, from {@code directory}; no check. */
  static String resolve(String directory, String path) {
    Deque<String> parts = new ArrayDeque<>();
    if (!path.startsWith("/")) {
      for (String part : directory.split("/")) {
        if (!part.isEmpty()) {
          parts.addLast(part);
        }
      }
    }
    for (String part : path.split("/")) {
      if (part.equals("..")) {
        parts.pollLast();
      } else if (!part.isEmpty() && !part.equals(".")) {
        parts.addLast(part);
      }
    }
    return String.join("/", parts);
  }

  /** Words and operators, quotes and backslashes removed; a comment ends the tokens. */
  static List<String> tokens(String text) {
    List<String> tokens = new ArrayList<>();
    StringBuilder word = null;
    char quote = 0;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (quote == '\'') {
        if (c == '\'') {
          quote = 0;
        } else {
          word.append(c);
        }
      } else if (quote == '"') {
        if (c == '"') {
          quote = 0;
        } else if (c == '\\' && i + 1 < text.length() && "\"\\$`".indexOf(text.charAt(i + 1)) >= 0) {
          word.append(text.charAt(++i));
        } else {
          word.append(c);
        }
      } else if (Character.isWhitespace(c)) {
        word = flush(word, tokens);
      } else if (c == '#' && word == null) {
        break;
      } else if (c == '\'' || c == '"') {
        word = word == null ? new StringBuilder() : word;
        quote = c;
      } else if (c == '\\' && i + 1 < text.length()) {
        word = word == null ? new StringBuilder() : word;
        word.append(text.charAt(++i));
      } else if (c == '&' || c == '|' || c == ';' || c == '(' || c == ')') {
        word = flush(word, tokens);
        boolean doubled = (c == '&' || c == '|') && i + 1 < text.length() && text.charAt(i + 1) == c;
        if (doubled) {
          i++;
        }
        tokens.add(doubled ? "" + c + c : c == '&' ? ";" : String.valueOf(c));
      } else {
        word = word == null ? new StringBuilder() : word;
        word.append(c);
      }
    }
    flush(word, tokens);
    return tokens;
  }

  private static StringBuilder flush(StringBuilder word, List<String> tokens) {
    if (word != null) {
      tokens.add(word.toString());
    }
    return null;
  }

  private static boolean endsWithContinuation(CharSequence line) {
    int backslashes = 0;
    for (int i = line.length() - 1; i >= 0 && line.charAt(i) == '\\'; i--) {
      backslashes++;
    }
    return backslashes % 2 == 1;
  }
}

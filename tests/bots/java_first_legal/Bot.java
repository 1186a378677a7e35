import java.io.BufferedReader;
import java.io.InputStreamReader;

/** Answers every decision with the first legal one, copied as it was sent (no JSON library). */
public class Bot {
    /** The end of the JSON value that starts at `start` (an object, array, string or number). */
    static int valueEnd(String s, int start) {
        int depth = 0;
        boolean inString = false;
        for (int i = start; i < s.length(); i++) {
            char c = s.charAt(i);
            if (inString) {
                if (c == '\\') i++;
                else if (c == '"') { inString = false; if (depth == 0) return i + 1; }
            } else if (c == '"') inString = true;
            else if (c == '{' || c == '[') depth++;
            else if (c == '}' || c == ']') { depth--; if (depth == 0) return i + 1; }
            else if (depth == 0 && (c == ',')) return i;
        }
        return s.length();
    }

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, "UTF-8"));
        String line;
        while ((line = in.readLine()) != null) {
            if (line.startsWith("{\"type\":\"start\"")) {
                System.out.println("{\"type\":\"ready\"}");
            } else if (line.startsWith("{\"type\":\"decide\"")) {
                int id = line.indexOf("\"id\":") + 5;
                String number = line.substring(id, line.indexOf(',', id));
                int legal = line.lastIndexOf("\"legal\":[") + 9;
                String first = line.substring(legal, valueEnd(line, legal));
                System.out.println("{\"type\":\"decision\",\"id\":" + number + ",\"decision\":" + first + "}");
            } else if (line.startsWith("{\"type\":\"quit\"")) {
                return;
            }
            System.out.flush();
        }
    }
}

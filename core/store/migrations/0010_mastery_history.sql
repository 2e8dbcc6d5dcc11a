-- Every change of the learner's mastery, per concept note and per curriculum subtopic, so that
-- progress across sessions can be charted (tutor_mastery keeps only each session's latest
-- value). Written by core.flows.tutor.progress at each evaluation that changes it.
CREATE TABLE tutor_mastery_history (
    id INTEGER PRIMARY KEY,
    session_id TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('concept', 'subtopic')),
    ref TEXT NOT NULL,
    title TEXT NOT NULL,
    mastery REAL NOT NULL,
    recorded_at TEXT NOT NULL
);
CREATE INDEX tutor_mastery_history_ref ON tutor_mastery_history(kind, ref, recorded_at);
CREATE INDEX tutor_mastery_history_session ON tutor_mastery_history(session_id, kind, ref);

-- What earlier versions kept becomes the first points: each session's latest mastery per
-- concept note, and per subtopic that of each curriculum session.
INSERT INTO tutor_mastery_history (session_id, kind, ref, title, mastery, recorded_at)
    SELECT session_id, 'concept', concept_id, title, mastery, practiced_at FROM tutor_mastery;
INSERT INTO tutor_mastery_history (session_id, kind, ref, title, mastery, recorded_at)
    SELECT id, 'subtopic', subject || ' / ' || topic || ' / ' || subtopic, subtopic, mastery,
           updated_at
    FROM tutor_sessions WHERE subtopic <> '' AND turns > 0;

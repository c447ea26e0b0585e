-- Full-text index of knowledge documents (title, body). drizzle cannot describe FTS5 virtual
-- tables, so this migration is hand-written. External content: the index stores no copy of the
-- text; the triggers keep it in step with knowledge_documents inside the writing transaction.
CREATE VIRTUAL TABLE `knowledge_fts` USING fts5(
	title,
	markdown,
	content = 'knowledge_documents',
	content_rowid = 'id',
	tokenize = 'unicode61 remove_diacritics 2'
);
--> statement-breakpoint
CREATE TRIGGER `knowledge_documents_after_insert` AFTER INSERT ON `knowledge_documents` BEGIN
	INSERT INTO knowledge_fts(rowid, title, markdown) VALUES (new.id, new.title, new.markdown);
END;
--> statement-breakpoint
CREATE TRIGGER `knowledge_documents_after_delete` AFTER DELETE ON `knowledge_documents` BEGIN
	INSERT INTO knowledge_fts(knowledge_fts, rowid, title, markdown) VALUES ('delete', old.id, old.title, old.markdown);
END;
--> statement-breakpoint
CREATE TRIGGER `knowledge_documents_after_update` AFTER UPDATE ON `knowledge_documents` BEGIN
	INSERT INTO knowledge_fts(knowledge_fts, rowid, title, markdown) VALUES ('delete', old.id, old.title, old.markdown);
	INSERT INTO knowledge_fts(rowid, title, markdown) VALUES (new.id, new.title, new.markdown);
END;

-- A write-back that corrects an earlier result (POST …/interview/correction): why it was corrected,
-- said in the note it adds to the ATS. Null for the write-back of an interview that just ended.
alter table write_backs add column correction_reason text;

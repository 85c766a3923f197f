"""The demo in Vietnamese: two authors, their posts and the readers who discuss them.
People go by the last word of their name ("anh Nam", "@Hà")."""

from cms.demo_content import Article, Commenter, Voice

AUTHORS = [
    ("thuha", "Nguyễn Thu Hà", "Backend engineer in Hanoi. Writes in Vietnamese about MongoDB and small, fast sites."),
    ("khoa", "Trần Minh Khoa", "Runs a Vietnamese developer forum from Ho Chi Minh City; writes about moderation."),
]

COMMENTERS = tuple(
    Commenter(name=name, email=f"{email}@example.com", called=name.split()[-1])
    for name, email in (
        ("Lê Hoàng Nam", "nam.le"), ("Phạm Thu Trang", "trang.pham"), ("Đỗ Quang Huy", "huy.do"),
        ("Vũ Ngọc Lan", "lan.vu"), ("Bùi Đức Thắng", "thang.bui"), ("Hoàng Minh Tuấn", "tuan.hoang"),
        ("Đặng Thị Hương", "huong.dang"), ("Ngô Bảo Long", "long.ngo"), ("Trương Thảo Vy", "vy.truong"),
        ("Lý Gia Bảo", "bao.ly"), ("Phan Văn Đạt", "dat.phan"), ("Huỳnh Kim Ngân", "ngan.huynh"),
    )
)
# A reader writes for a colleague abroad who follows the discussion, and is answered
# in both languages.
_FOR_A_COLLEAGUE = (
    "A: Mình viết tiếng Anh để đồng nghiệp bên Singapore cùng đọc nhé: how does a new comment find "
    "the last bucket? Do you look it up on every post?"
)
_IN_BOTH = (
    "@: Good question! The post keeps the number of its last bucket, so a new comment is one update, "
    "and one more only when that bucket is full. Có gì đồng nghiệp bạn cứ hỏi tiếp nhé."
)

ARTICLES = (
    Article(
        slug="gom-binh-luan-vao-bucket",
        title="Gom bình luận vào bucket: khi nào mới đáng làm?",
        author="thuha",
        language="vi",
        tags=("lưu trữ", "mongodb", "bucket"),
        excerpt=(
            "Gom mỗi 50 bình luận vào một document giúp đọc một trang chỉ tốn một lần truy vấn. "
            "Đổi lại, sửa, xoá và bình luận dạng cây đều khó hơn hẳn."
        ),
        body="""\
Hồi đầu năm, diễn đàn nội bộ của công ty mình có một chủ đề lên tới gần 9.000 bình
luận. Mỗi lần mở một trang, server phải đọc 50 document rời rạc rồi sắp xếp lại. Chưa
chậm tới mức sập, nhưng đủ để mọi người kêu. Đó là lúc mình thử pattern bucket.

## Bucket là gì

Thay vì mỗi bình luận một document, ta gom chúng theo thứ tự đăng vào từng "xô", mỗi
xô giữ tối đa một số lượng cố định, ví dụ 50 bình luận:

```
{discussion_id: ..., page: 12, count: 50, comments: [...]}
```

Đọc trang 12 là đúng một `find_one` theo `{discussion_id, page}`. Không sort, không
skip.

## Cái giá phải trả

- Đăng bình luận mới là một `$push` vào xô cuối, kèm điều kiện `count < 50`. Xô đầy
  thì phải tạo xô mới, và hai người đăng cùng lúc sẽ tranh nhau đúng chỗ này.
- Bình luận dạng cây khó hơn nhiều: câu trả lời cho một bình luận cũ nằm ở xô khác
  với bình luận gốc của nó.
- Ẩn hay xoá một bình luận không được làm xô co lại, nếu không thì số trang sẽ bị lệch.

## Kết luận của mình

Nếu bình luận của bạn hiển thị phẳng, lượt đọc nhiều hơn lượt ghi hàng trăm lần và có
những chủ đề dài tới hàng nghìn bình luận, bucket rất đáng thử. Còn lại, cứ mỗi bình
luận một document là đủ tốt, và dễ sống chung hơn nhiều.
""",
        talk=(
            ("A: Chị ơi, sao lại chọn 50 mà không phải 100? Có đo đạc gì không hay chọn cho tròn số?",
             "@: Có đo em ạ. 50 đúng bằng một trang hiển thị, nên một trang luôn là một xô. Lên 100 thì "
             "document to gấp đôi mà đọc cũng chẳng nhanh hơn.",
             "A: À, vậy là kích thước xô đi theo kích thước trang. Hợp lý ghê."),
            ("A: Đoạn hai người đăng cùng lúc tranh nhau xô cuối, bên mình từng dính y hệt. Có một xô chứa "
             "tới 51 bình luận.",
             "B: Bạn đã đặt `count < 50` vào filter của lệnh update chưa? Không khớp thì update trả về 0, lúc "
             "đó mới tạo xô mới.",
             "A: Có rồi, nhưng lúc tạo xô mới lại quên unique index trên `{discussion_id, page}`, thế là sinh "
             "ra hai xô số 13.",
             "B: Kinh điển luôn. Unique index là thứ duy nhất thật sự chặn được chuyện đó."),
            ("A: Thế còn bình luận dạng cây thì sao? Bài viết lướt qua đoạn này hơi nhanh.",
             "@: Đúng là mình né phần đó. Diễn đàn bên mình hiển thị phẳng, ai muốn trả lời thì trích dẫn, "
             "nên không cần cây.",
             "C: Bên mình có cây, và cuối cùng phải quay về mỗi bình luận một document. Đừng cố ép bucket "
             "làm việc nó không giỏi."),
            (_FOR_A_COLLEAGUE, _IN_BOTH),
        ),
    ),
    Article(
        slug="kiem-duyet-binh-luan-khi-doi-chi-co-hai-nguoi",
        title="Kiểm duyệt bình luận khi cả đội chỉ có hai người",
        author="khoa",
        language="vi",
        tags=("kiểm duyệt", "cộng đồng", "spam"),
        excerpt=(
            "Diễn đàn của bọn mình có hơn ba nghìn thành viên và đúng hai người kiểm duyệt làm ngoài giờ. "
            "Đây là những gì giúp bọn mình không bị ngợp."
        ),
        body="""\
Diễn đàn của bọn mình có hơn ba nghìn thành viên, mỗi ngày vài trăm bình luận, và đúng
hai người kiểm duyệt, cả hai đều làm ngoài giờ. Một năm trước, hàng chờ duyệt lúc nào
cũng dài cả trăm mục. Bây giờ hiếm khi quá mười.

## Người quen thì khỏi duyệt

Ai đã có ba bình luận được duyệt thì bình luận tiếp theo hiện ngay. Phần lớn người viết
là người quen, nên hàng chờ chỉ còn người mới và những bình luận có đường link.

## Để người đọc báo cáo

Mỗi bình luận có nút "Báo cáo". Ba báo cáo từ ba tài khoản khác nhau thì bình luận tự
ẩn, chờ người kiểm duyệt xem lại. Bọn mình từng lo nút này bị lạm dụng, nhưng thực tế
người đọc báo cáo rất có tâm.

## Ghi lại mọi quyết định

Mỗi lần ẩn, xoá hay cấm ai đều được lưu lại: ai làm, lúc nào, vì sao. Khi có người hỏi
"bình luận của tôi đâu rồi", bọn mình trả lời được trong một phút, và hai người kiểm
duyệt không bao giờ phải đoán xem người kia đã làm gì.

Kiểm duyệt tốt không phải là đọc hết mọi thứ, mà là chỉ phải đọc những gì thật sự cần
đến con người.
""",
        talk=(
            ("A: Ba bình luận được duyệt là đủ tin rồi à? Spammer kiên nhẫn một chút là qua thôi.",
             "@: Qua được, nhưng hiếm lắm. Mà có qua thì vẫn còn nút báo cáo. Bọn mình chưa gặp ai kiên nhẫn "
             "tới mức đó chỉ để rải link.",
             "A: Nghe cũng có lý. Công sức để lừa hệ thống lớn hơn cái lợi thu về."),
            ("A: Ba báo cáo là tự ẩn, vậy nhỡ một nhóm rủ nhau báo cáo để dìm một người thì sao anh?",
             "@: Từng có một lần rồi. Vì mọi quyết định đều được ghi lại, bọn mình thấy ngay ba tài khoản đó "
             "lúc nào cũng báo cáo cùng nhau, trong vòng vài phút.",
             "B: Rồi anh xử lý thế nào ạ?",
             "@: Khôi phục bình luận, và báo cáo từ ba tài khoản đó không còn được tính nữa. Không cần cấm "
             "ai cả."),
            ("A: Phần ghi lại mọi quyết định là phần mình thấy giá trị nhất. Đội mình từng cãi nhau to chỉ vì "
             "không ai nhớ ai đã xoá cái gì.",
             "B: Chuẩn. Không có nhật ký thì kiểm duyệt chỉ còn là cảm tính."),
        ),
    ),
    Article(
        slug="chon-shard-key-cho-binh-luan",
        title="Chọn shard key cho bình luận: đừng để một bài hot kéo sập cả cụm",
        author="thuha",
        language="vi",
        tags=("sharding", "mongodb", "hiệu năng"),
        excerpt=(
            "Shard theo `discussion_id` nghe rất tự nhiên, cho tới ngày một bài viết lên top và toàn bộ "
            "lượt ghi dồn vào đúng một shard."
        ),
        body="""\
Khi lượng bình luận vượt quá sức một máy, câu hỏi đầu tiên là shard theo trường nào.
Câu trả lời tự nhiên nhất là `discussion_id`: mọi bình luận của một bài nằm chung một
chỗ, đọc một trang chỉ chạm tới một shard.

## Vấn đề của bài viết hot

Lượng bình luận không hề chia đều. Phần lớn bài viết có dăm ba bình luận, còn một bài
lên top có thể nhận hàng nghìn bình luận trong một buổi tối. Với shard key là
`discussion_id`, toàn bộ lượt ghi đó dồn vào một chunk trên một shard, trong khi các
shard khác ngồi chơi.

## Thêm một trường nữa

Shard key ghép `{discussion_id: 1, full_slug: 1}` giữ được điều quan trọng nhất: một
trang bình luận vẫn là một khoảng liên tục trên index. Nhưng giờ chunk của một bài hot
có thể tách nhỏ, và câu trả lời cho các nhánh cũ sẽ rơi vào những chunk khác nhau.

## Đừng dùng hashed cho trường hợp này

Hashed shard key chia đều lượt ghi rất đẹp, nhưng đổi lại, đọc một trang bình luận phải
gửi truy vấn tới tất cả các shard. Với một trang có lượt đọc nhiều hơn lượt ghi, đó là
đổi sai chiều.

Trước khi shard, hãy chắc là bạn thật sự cần. Một replica set được đánh index tử tế
gánh được nhiều hơn bạn nghĩ.
""",
        talk=(
            ("A: Nhưng `full_slug` bắt đầu bằng thời gian, nên bình luận gốc mới vẫn luôn rơi vào chunk cuối "
             "cùng của bài đó, đúng không chị?",
             "@: Đúng vậy. Ghép thêm `full_slug` không xoá được điểm nóng, chỉ thu nhỏ nó lại: trả lời vào "
             "các nhánh cũ thì tản ra, còn bình luận mới ở gốc vẫn dồn về một chỗ.",
             "A: Vậy là vẫn hơn hẳn `discussion_id` trơn, nhưng không phải phép màu.",
             "@: Chính xác. Với bọn mình vậy là đủ: bài hot nhất cũng chưa tới mức một shard không gánh nổi."),
            ("A: Câu cuối bài nên in ra dán lên tường phòng họp.",
             "B: Đồng ý hai tay. Bên mình shard từ năm đầu tiên, ba năm sau vẫn chưa thật sự cần tới.",
             "C: Ít ra các bạn đã học cách vận hành một cụm shard từ sớm, đâu có phí.",
             "B: Học thì có học, nhưng trả tiền máy ba năm cho bài học đó thì hơi đắt."),
            ("A: Sao không dùng hashed cho `_id` của bình luận, rồi đọc trang qua một index phụ trên "
             "`discussion_id`?",
             "B: Index phụ cũng nằm rải trên từng shard thôi, truy vấn theo `discussion_id` vẫn phải hỏi "
             "hết các shard.",
             "A: À đúng, index không làm thay đổi chuyện dữ liệu nằm ở đâu. Cảm ơn nhé."),
        ),
    ),
)

PRAISE = (
    "Bài viết rất dễ hiểu, cảm ơn tác giả đã chia sẻ.",
    "Lưu lại để cuối tuần đọc kỹ.",
    "Đọc một mạch hết luôn. Viết về cơ sở dữ liệu mà không hề khô khan.",
    "Lần đầu bình luận ở đây, bài này đáng để lên tiếng.",
    "Đã gửi cho cả team đọc. Hay quá!",
    "Ví dụ cụ thể thế này mới dễ nhớ, đọc lý thuyết suông mãi rồi cũng quên.",
    "Mong có thêm phần hai với số liệu thực tế.",
    "Hiếm thấy bài tiếng Việt nào đi sâu tới mức này, cảm ơn bạn.",
)
REMARKS = PRAISE + (
    "Đúng lúc team mình đang tranh luận chuyện này, gửi link vào nhóm chat luôn.",
    "Bọn mình chọn hướng ngược lại từ hai năm trước, giờ thấy hơi tiếc.",
    "Thích cách bài viết nói rõ mỗi lựa chọn phải trả giá gì, chứ không chỉ kể cái lợi.",
    "Phần lớn trang web đều nhỏ, bài này dám nói thẳng điều đó.",
    "Mấy điều trong bài bọn mình đều học theo cách đau đớn. Giá mà đọc được sớm hơn.",
    "Mình nghĩ phiên bản đơn giản trong bài đã đủ cho chín phần mười số dự án mình từng làm.",
    "Giá có thêm một phần về việc cần theo dõi gì khi đã lên production thì tuyệt.",
    "Phần bình luận ở đây cũng hay không kém bài viết.",
    "Không đồng ý hết, nhưng lập luận rõ tới mức mình biết chính xác mình không đồng ý ở đâu.",
    "Đọc lại lần thứ hai vẫn thấy đúng.",
    "Trang của bọn mình đang gặp đúng vấn đề này, thời điểm không thể hợp hơn.",
    "Cái khó nhất không phải viết code mà là thuyết phục cả team làm theo.",
    "Bọn mình làm y như vậy năm ngoái, những đánh đổi trong bài là chính xác.",
    "Ai từng làm hệ thống bình luận cho báo điện tử chắc đọc bài này sẽ gật gù liên tục.",
)
AGREEMENTS = (
    "Chuẩn luôn. Nhìn thì đơn giản, tới ngày đông người mới biết.",
    "Đồng ý. Bọn mình học bài này sau một lần sập hệ thống.",
    "Đúng vậy, trong mấy năm đầu thì lựa chọn nhàm chán thường là lựa chọn đúng.",
    "Thêm vào thì dễ, bỏ đi mới khó. Hoàn toàn đồng ý.",
    "Đo trước rồi hãy quyết. Không thể đồng ý hơn.",
    "Số liệu bên mình cũng ra gần y như vậy.",
    "Mình bổ sung: ghi lại lý do chọn cách đó, để người sau khỏi vô tình đập đi.",
    "Bên mình cũng vậy, dù phải viết lại hai lần mới tới được đó.",
    "Xác nhận. Bọn mình thử bản \"thông minh\" trước, chưa tới một tháng đã phải quay lại.",
    "Ý hay. Phần lớn rắc rối bên mình cũng đến từ đúng chỗ đó.",
    "Chuẩn, và trang càng lớn thì điều này càng đúng.",
    "Đồng ý, nhưng nhớ test trên đúng loại database đang chạy thật, đừng chỉ test trên máy mình.",
    "Và phải có một bài test đỏ lên khi ai đó làm hỏng nó.",
    "Mình nghĩ đây chính là ý quan trọng nhất của cả bài.",
    "Đúng thế. Bỏ qua chuyện này một năm, bọn mình trả giá trong đúng một cuối tuần.",
    "DBA bên mình nói điều này suốt mấy năm nay, giờ mới có người viết ra rõ ràng.",
)
THANKS = (
    "Cảm ơn, giờ thì mình hiểu rồi.",
    "Rất hữu ích, cảm ơn bạn nhiều.",
    "À ra vậy. Cảm ơn nha!",
    "Cảm ơn đã giải thích kỹ, mai mình thử luôn.",
    "Đọc tài liệu cả tiếng mà bỏ sót đúng chỗ này. Cảm ơn bạn.",
    "Tuyệt, đó chính là mảnh ghép mình còn thiếu.",
    "Cảm ơn, khi nào có số liệu mình sẽ quay lại báo.",
    "Chép ngay vào sổ tay của team. Cảm ơn nhiều!",
    "Chưa từng nghĩ theo hướng đó. Cảm ơn bạn đã chỉ ra.",
    "Thử rồi, chạy ngon lành. Cảm ơn bạn!",
)
FOLLOW_UPS = (
    "Bạn đo trên replica set hay chỉ một máy?",
    "Với vài trăm nghìn bình luận thì cách này còn ổn không?",
    "Có test tự động cho phần này không, hay kiểm tra bằng tay?",
    "Nếu làm lại từ đầu, bạn sẽ làm khác chỗ nào?",
    "Đặt cache phía trước thì có thay đổi gì không?",
    "Lúc đó bạn chạy MongoDB bản nào vậy?",
    "Triển khai mất bao lâu vậy bạn?",
    "Người đọc có nhận ra gì trong lúc chuyển đổi không?",
    "Cái này mặc định đã bật sẵn hay phải tự bật?",
    "Có con số trước và sau không bạn?",
    "Hai người đăng cùng một lúc thì xử lý sao?",
    "Bạn tìm ra chỗ này trong tài liệu hay phải đọc source?",
    "Trang nhỏ thì bạn có còn làm vậy không?",
    "Có bài nào viết kỹ hơn về phần này không, cho mình xin link với?",
)
DOUBTS = (
    "Mình không chắc cách này còn đúng khi lượng truy cập lớn thật.",
    "Kinh nghiệm của mình thì khác, nhưng các chủ đề bên mình ngắn hơn nhiều.",
    "Cẩn thận khi suy ra từ một trang duy nhất.",
    "Nghe ổn, cho tới khi ai đó chạy nó trên một ổ đĩa chậm.",
    "Nói thật, mình thấy đây là giải quyết một vấn đề mà đa số trang không gặp.",
    "Có thể, nhưng chi phí vận hành dễ bị đánh giá thấp lắm.",
    "Nghe hấp dẫn, nhưng độ phức tạp chỉ chuyển sang chỗ khác chứ có mất đi đâu.",
    "Được, nhưng mình muốn có đường lùi trước đã.",
    "Chưa thuyết phục lắm. Trên giấy bao giờ cũng đơn giản hơn ngoài đời.",
    "Còn tuỳ người đọc dùng phần bình luận ra sao nữa.",
    "Mình nghĩ vào ngày đông khách thì số liệu sẽ khác hẳn.",
    "Cái khó là lần migrate sau này, chứ không phải phiên bản đầu tiên.",
    "Lý thuyết thì đúng. Thực tế chẳng ai đọc log để mà được cảnh báo.",
)
# Two readers who do not let go, longer than the page indents.
DEBATES = (
    (
        "A: Mình vẫn nghĩ cứ bắt đăng nhập là hết spam, khỏi cần kiểm duyệt cầu kỳ.",
        "B: Hết spam thì có, nhưng cũng hết luôn một nửa số người muốn bình luận.",
        "A: Người thật sự muốn góp ý thì mất ba mươi giây đăng ký có sao đâu.",
        "B: Với dân kỹ thuật thì không sao. Với độc giả lớn tuổi đọc trên điện thoại thì đó là cả một bức tường.",
        "A: Vậy cho đăng nhập bằng Google hay Zalo là xong.",
        "B: Rồi người ta lại ngại lộ danh tính thật khi kể chuyện ở công ty mình.",
        "A: Ẩn danh thì lại càng dễ nói bừa.",
        "B: Dễ hơn, nhưng không nhiều như bạn tưởng. Bên mình, bình luận ẩn danh bị báo cáo còn ít hơn "
        "bình luận có tài khoản.",
        "A: Thật à? Cái đó thì mình không ngờ.",
        "B: Thật. Người ẩn danh thường vào hỏi một câu rồi đi, còn cãi nhau tới khuya toàn là tài khoản quen.",
        "A: Được rồi, mình rút lại một nửa. Bắt đăng nhập không chặn được cãi nhau, chỉ chặn được người mới.",
        "B: Một nửa là nhiều rồi. Trên mạng hiếm ai chịu rút lại cái gì.",
    ),
)

VOICE = Voice(
    language="vi", commenters=COMMENTERS, praise=PRAISE, remarks=REMARKS, agreements=AGREEMENTS,
    thanks=THANKS, follow_ups=FOLLOW_UPS, doubts=DOUBTS, debates=DEBATES,
    mixed=frozenset(line.partition(": ")[2] for line in (_FOR_A_COLLEAGUE, _IN_BOTH)),
    given_name_last=True,
)
